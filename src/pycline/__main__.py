"""`python -m pycline`: the `pycline` command."""

import sys

from pycline.main import main

sys.exit(main())
