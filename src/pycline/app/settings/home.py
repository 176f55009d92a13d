"""Where pycline keeps things for this user, for the front ends: its state
(`PYCLINE_HOME`, else the platform's data folder) and its runtime folder (0700, the user's own:
sockets and private files such as the page that opens the web UI)."""

from __future__ import annotations

from pycline.storage.paths import pycline_home
from pycline.storage.runtime import RuntimeDirError, runtime_dir

__all__ = ["RuntimeDirError", "pycline_home", "runtime_dir"]
