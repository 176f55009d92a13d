"""The web UI costs nothing until `pycline ui` runs: `pycline --help` stays fast."""

from __future__ import annotations

import subprocess
import sys

CHECK = """
import sys
import pycline.cli.main
pycline.cli.main.build_parser()
loaded = sorted(m for m in ("aiohttp", "pycline.web.server", "pycline.web.command") if m in sys.modules)
print(",".join(loaded) or "none")
"""


def test_the_command_line_does_not_import_the_web_server():
    result = subprocess.run(
        [sys.executable, "-c", CHECK], capture_output=True, text=True, timeout=60, check=True
    )
    assert result.stdout.strip() == "none"
