"""Where background tasks keep their state (pycline's home) and their sockets (runtime folder).

Sockets live in the user's runtime folder (`$XDG_RUNTIME_DIR/pycline`, else `/tmp/pycline-<uid>`),
a 0700 folder the user owns; each socket is 0600. Anyone who can connect can approve actions, so a
folder owned by someone else, or open to others, is refused rather than used.
"""

from __future__ import annotations

import os
import re
import stat
import tempfile
from pathlib import Path

from pycline.errors import PyclineError

_ID = re.compile(r"bg-[0-9a-z]{8,32}")


class BackgroundError(PyclineError):
    """A background task cannot be started, found or reached."""


def valid_id(bg_id: str) -> bool:
    return bool(_ID.fullmatch(bg_id))


def state_dir(home: Path) -> Path:
    return home / "background"


def runtime_dir() -> Path:
    base = os.environ.get("XDG_RUNTIME_DIR")
    folder = (
        Path(base) / "pycline"
        if base and Path(base).is_dir()
        else Path(tempfile.gettempdir()) / f"pycline-{os.getuid()}"
    )
    try:
        folder.mkdir(mode=0o700, exist_ok=True)
    except OSError as exc:
        raise BackgroundError(f"cannot create the runtime folder {folder}: {exc}") from exc
    info = folder.lstat()
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid():
        raise BackgroundError(f"{folder} is not a folder owned by you; refusing to use it")
    if info.st_mode & 0o077:
        os.chmod(folder, 0o700)
    return folder


def socket_path(bg_id: str) -> Path:
    if not valid_id(bg_id):
        raise BackgroundError(f"no background task {bg_id!r}")
    return runtime_dir() / f"{bg_id}.sock"
