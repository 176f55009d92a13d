"""Where background tasks keep their state (pycline's home) and their sockets (runtime folder).

Sockets live in pycline's runtime folder (`storage.runtime`: 0700, the user's own, hidden from
sandboxed commands); each socket is 0600. Whoever talks to one can approve actions, so it also
checks that its peer is this user and that the first message carries the task's secret, a file
in PYCLINE_HOME (0600; covered in the sandbox) that only pycline's own clients read.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from pycline.errors import PyclineError
from pycline.storage.runtime import RuntimeDirError, new_secret
from pycline.storage.runtime import runtime_dir as _runtime_dir

# `bg-…`: a `pycline run --bg` worker; `live-…`: a task some other front end runs.
_ID = re.compile(r"(?:bg|live)-[0-9a-z]{8,32}")


class BackgroundError(PyclineError):
    """A background task cannot be started, found or reached."""


def valid_id(bg_id: str) -> bool:
    return bool(_ID.fullmatch(bg_id))


def state_dir(home: Path) -> Path:
    return home / "background"


def runtime_dir() -> Path:
    try:
        return _runtime_dir()
    except RuntimeDirError as exc:
        raise BackgroundError(str(exc)) from exc


def secret_file(home: Path, bg_id: str) -> Path:
    return state_dir(home) / f"{bg_id}.secret"


def make_secret(home: Path, bg_id: str) -> str:
    """A new secret for the task's socket, saved for pycline's own clients (0600)."""
    secret = new_secret()
    path = secret_file(home, bg_id)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(secret)
    return secret


def read_secret(home: Path, bg_id: str) -> str:
    if not valid_id(bg_id):
        raise BackgroundError(f"no background task {bg_id!r}")
    try:
        return secret_file(home, bg_id).read_text(encoding="utf-8").strip()
    except OSError as exc:
        raise BackgroundError(f"background task {bg_id} cannot be reached: {exc}") from exc


def socket_path(bg_id: str) -> Path:
    if not valid_id(bg_id):
        raise BackgroundError(f"no background task {bg_id!r}")
    return runtime_dir() / f"{bg_id}.sock"
