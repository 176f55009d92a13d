"""Atomic file writes: a reader sees the old file or the new one, never a half-written one."""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

try:
    import fcntl
except ImportError:  # not on Windows
    fcntl = None  # type: ignore[assignment]


def _temp_prefix(path: Path, pid: int) -> str:
    return f".{path.name}.pycline-{pid}-"


def _remove_orphans(path: Path) -> None:
    """Temp files an earlier, killed writer of `path` left behind (its process is gone)."""
    stem = f".{path.name}.pycline-"
    try:
        candidates = [e for e in os.scandir(path.parent) if e.name.startswith(stem)]
    except OSError:
        return
    for entry in candidates:
        pid_text = entry.name[len(stem) :].split("-", 1)[0]
        if not pid_text.isdigit() or not entry.name.endswith(".tmp") or _alive(int(pid_text)):
            continue
        with contextlib.suppress(OSError):
            os.unlink(entry.path)


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True  # someone else's process (or a number we cannot check): leave its file
    return True


def atomic_write_bytes(path: Path, data: bytes, *, mode: int | None = None) -> None:
    """Write `data` to a file with no name, then give it `path`'s name in one step.

    A kill while the data is written (the long part, for a big file) leaves nothing behind: the
    file has no name until it is complete (Linux `O_TMPFILE`). It is then linked in as `path`
    when `path` is new, or linked under a temp name and renamed over `path`; only a kill between
    those two calls leaves that temp name, which the next write of the same file removes. Where
    unnamed files are not supported (other systems, some network file systems) the data goes to
    a temp file named after our pid and is renamed into place.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    _remove_orphans(path)
    fd = _unnamed_file(path.parent)
    if fd is None:
        _write_through_temp_name(path, data, mode)
        return
    try:
        _write_all(fd, data, mode)
        linked = _link_into_place(fd, path)
    finally:
        os.close(fd)
    if not linked:
        _write_through_temp_name(path, data, mode)


def _unnamed_file(folder: Path) -> int | None:
    flag = getattr(os, "O_TMPFILE", 0)
    if not flag or not Path("/proc/self/fd").is_dir():
        return None
    try:
        return os.open(folder, flag | os.O_WRONLY | getattr(os, "O_CLOEXEC", 0), 0o600)
    except OSError:  # not supported by this file system (EOPNOTSUPP, EISDIR, EINVAL)
        return None


def _write_all(fd: int, data: bytes, mode: int | None) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
    os.fsync(fd)
    if mode is not None:
        os.fchmod(fd, mode)


def _link_into_place(fd: int, path: Path) -> bool:
    """Give the unnamed file `fd` the name `path`; False where this file system cannot."""
    # linkat() through the /proc magic link: a directory fd makes Python call linkat with
    # AT_SYMLINK_FOLLOW (with none it calls link(), which would link the magic link itself).
    proc = os.open("/proc/self/fd", os.O_RDONLY | os.O_DIRECTORY)
    try:
        try:
            os.link(str(fd), path, src_dir_fd=proc, follow_symlinks=True)
            return True
        except FileExistsError:
            pass  # replacing a file: link under a temp name, then rename over it
        except OSError:
            return False
        temp = path.parent / f"{_temp_prefix(path, os.getpid())}{secrets.token_hex(4)}.tmp"
        os.link(str(fd), temp, src_dir_fd=proc, follow_symlinks=True)
    finally:
        os.close(proc)
    try:
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp)
        raise
    return True


def _write_through_temp_name(path: Path, data: bytes, mode: int | None) -> None:
    fd, tmp = tempfile.mkstemp(
        prefix=_temp_prefix(path, os.getpid()), suffix=".tmp", dir=path.parent
    )
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def atomic_write_text(path: Path, text: str, *, mode: int | None = None) -> None:
    atomic_write_bytes(path, text.encode("utf-8"), mode=mode)


def atomic_write_json(path: Path, data: Any, *, mode: int | None = None) -> None:
    text = json.dumps(data, ensure_ascii=False, indent=1)
    try:
        encoded = text.encode("utf-8")
    except UnicodeEncodeError:
        # A lone surrogate (a file name that is not UTF-8, say) has no UTF-8 form; escaped,
        # it is valid JSON that reads back as the same string.
        encoded = json.dumps(data, ensure_ascii=True, indent=1).encode("ascii")
    atomic_write_bytes(path, encoded, mode=mode)


# --- read-modify-write under a lock -------------------------------------------------------------

_held = threading.local()


@contextlib.contextmanager
def locked(path: Path) -> Iterator[None]:
    """Hold an exclusive lock for a read-modify-write of the state file `path`, so concurrent
    pycline processes (and threads) updating it each see the update before theirs instead of
    overwriting it.

    The lock is taken on the file's folder (an atomic write replaces the file itself, and a lock
    file beside it would be litter, in a repository's `.pycline/` too): updates of files in one
    folder wait for each other, for the few milliseconds each takes. Re-entrant within a thread;
    a no-op where the platform has no `fcntl`."""
    folder = path.parent
    folder.mkdir(parents=True, exist_ok=True)
    key = str(folder.resolve())
    depth: dict[str, int] = getattr(_held, "depth", None) or {}
    _held.depth = depth
    if depth.get(key) or fcntl is None:
        depth[key] = depth.get(key, 0) + 1
        try:
            yield
        finally:
            depth[key] -= 1
        return
    fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | os.O_CLOEXEC)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        depth[key] = 1
        try:
            yield
        finally:
            depth[key] = 0
    finally:
        os.close(fd)  # closing releases the lock
