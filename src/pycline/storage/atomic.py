"""Atomic file writes: a reader sees the old file or the new one, never a half-written one."""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any


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
    """Write via a temp file named after our pid, renamed into place; a kill leaves at most that
    temp file, which the next write of the same file removes."""
    path.parent.mkdir(parents=True, exist_ok=True)
    _remove_orphans(path)
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
