"""The edit tools and the task wiring do not import the LSP client until a check runs."""

from __future__ import annotations

import subprocess
import sys

CHECK = """
import sys
import pycline.tools.edit
import pycline.app.builders.wiring
import pycline.core.user_input
import pycline.editing.textfile
print(",".join(m for m in ("pygls", "lsprotocol", "charset_normalizer") if m in sys.modules) or "none")
"""


def test_importing_the_edit_tools_does_not_import_pygls_or_the_charset_detector() -> None:
    result = subprocess.run(
        [sys.executable, "-c", CHECK], capture_output=True, text=True, timeout=60, check=True
    )
    assert result.stdout.strip() == "none"
