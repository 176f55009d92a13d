"""Where pycline keeps its data: `PYCLINE_HOME`, else the platform's user data folder."""

from __future__ import annotations

import os
from pathlib import Path


def pycline_home() -> Path:
    env = os.environ.get("PYCLINE_HOME")
    if env:
        return Path(env).expanduser()
    from platformdirs import user_data_dir

    return Path(user_data_dir("pycline", appauthor=False))
