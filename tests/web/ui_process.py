"""The `pycline ui` command line the web tests and `bench/web_ui.py` start (scripted provider)."""

from __future__ import annotations

import sys
from pathlib import Path


def ui_argv(workspace: Path, script: Path, *extra: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "pycline",
        "ui",
        "--no-open",
        "--cwd",
        str(workspace),
        "--provider",
        "scripted",
        "--script",
        str(script),
        *extra,
    ]
