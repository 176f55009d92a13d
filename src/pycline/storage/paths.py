"""Where pycline keeps its data: `PYCLINE_HOME`, else the platform's user data folder.

It holds every task's prompts and results, so it is private: made 0700, its files 0600 (the
history index, the task folders' files, the checkpoint repositories), whatever the umask.
"""

from __future__ import annotations

import os
from pathlib import Path


def pycline_home() -> Path:
    """The data folder, made (0700: it holds every task's prompts) if it does not exist yet."""
    env = os.environ.get("PYCLINE_HOME")
    if env:
        return private_folder(Path(env).expanduser())
    from platformdirs import user_data_dir

    return private_folder(Path(user_data_dir("pycline", appauthor=False)))


_made: set[str] = set()


def private_folder(path: Path) -> Path:
    """`path`, made readable by this user only (whatever the umask) when it does not exist; an
    existing folder keeps its mode (`pycline doctor` says when others can read it)."""
    key = str(path)
    if key in _made:
        return path
    if not os.path.lexists(path):
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.mkdir(mode=0o700)
            os.chmod(path, 0o700)  # mkdir's mode passes through the umask
        except FileExistsError:
            pass  # another process made it first
        except OSError:
            return path  # the first write says why, where it happens
    _made.add(key)
    return path
