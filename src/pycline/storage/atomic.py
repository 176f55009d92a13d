"""Atomic file writes: a reader sees the old file or the new one, never a half-written one."""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any


def atomic_write_bytes(path: Path, data: bytes, *, mode: int | None = None) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
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
