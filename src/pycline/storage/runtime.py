"""Where pycline's runtime sockets and private short-lived files live, and who may use them.

One folder per user: `$XDG_RUNTIME_DIR/pycline`, else `<tmp>/pycline-<uid>`, 0700 and owned by
the user (one owned by someone else, or that is a link, is refused). Every control socket lives
there (background tasks today), and private files such as the browser's login redirect.

The folder is not enough: a command pycline runs is the same user. So the sandbox covers this
folder and `$XDG_RUNTIME_DIR` itself (`SandboxPolicy.runtime`), and every socket server checks
its peer (`peer_is_us`: SO_PEERCRED, same uid) and a secret each client must present
(`new_secret` / `secret_matches`), kept where the sandbox cannot read it (PYCLINE_HOME).
"""

from __future__ import annotations

import hmac
import os
import secrets
import socket
import stat
import struct
import tempfile
from pathlib import Path
from typing import Any

from pycline.errors import PyclineError

FOLDER_NAME = "pycline"


class RuntimeDirError(PyclineError):
    """The runtime folder cannot be made or is not safely ours."""


def runtime_base() -> Path:
    """The folder that holds ours: the session's runtime folder, else the temporary folder."""
    base = os.environ.get("XDG_RUNTIME_DIR")
    if base and os.path.isabs(base) and Path(base).is_dir():
        return Path(base)
    return Path(tempfile.gettempdir())


def runtime_dir() -> Path:
    """pycline's runtime folder (created 0700 if missing; checked to be ours)."""
    base = runtime_base()
    name = FOLDER_NAME if base != Path(tempfile.gettempdir()) else f"pycline-{os.getuid()}"
    folder = base / name
    try:
        folder.mkdir(mode=0o700, exist_ok=True)
        info = folder.lstat()
    except OSError as exc:
        raise RuntimeDirError(f"cannot create the runtime folder {folder}: {exc}") from exc
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid():
        raise RuntimeDirError(f"{folder} is not a folder owned by you; refusing to use it")
    if info.st_mode & 0o077:
        os.chmod(folder, 0o700)
    return folder


def hidden_from_commands() -> tuple[Path, ...]:
    """What a sandbox must cover so no command reaches a runtime socket or file."""
    found = [runtime_base() / FOLDER_NAME, Path(tempfile.gettempdir()) / f"pycline-{os.getuid()}"]
    return tuple(dict.fromkeys(found))


def new_secret() -> str:
    """256 random bits, URL-safe: what a client must present to a socket."""
    return secrets.token_urlsafe(32)


def secret_matches(expected: str, given: Any) -> bool:
    return isinstance(given, str) and hmac.compare_digest(given.encode(), expected.encode())


_UCRED = struct.Struct("3i")  # pid, uid, gid


def peer_uid(sock: Any) -> int | None:
    """The uid at the other end of a Unix socket (a `socket.socket`, or what an asyncio
    transport's `get_extra_info("socket")` gives); None where the system cannot tell."""
    option = getattr(socket, "SO_PEERCRED", None)
    if option is None or sock is None:
        return None
    try:
        raw = sock.getsockopt(socket.SOL_SOCKET, option, _UCRED.size)
    except OSError:
        return None
    return int(_UCRED.unpack(raw)[1])


def peer_is_us(sock: Any) -> bool:
    """True when the peer runs as this user. Where the system cannot tell (no SO_PEERCRED),
    the folder's permissions and the secret are what hold."""
    if getattr(socket, "SO_PEERCRED", None) is None:
        return True
    return peer_uid(sock) == os.getuid()


def client_refusal(sock: Any, expected_secret: str, given_secret: Any) -> str | None:
    """Why a control socket refuses a client (None: it may talk): a peer that is another
    user, or a first message without the socket's secret."""
    if not peer_is_us(sock):
        return "this socket serves its own user only"
    if not secret_matches(expected_secret, given_secret):
        return "this socket wants its secret (pycline's own commands have it)"
    return None
