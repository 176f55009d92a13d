"""`python -m pycline`: the `pycline` command."""

from pycline.main import run

run()
