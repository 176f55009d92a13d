"""The one reader for files pycline opens on its own (settings, skills, rules, mentions, ignore
files, source files for definitions, hooks, MCP settings) without being led astray by what a
repository put there.

A repository can make `AGENTS.md` a symlink to `/proc/self/environ` or `/dev/zero`, or a FIFO that
blocks the first read forever. Such a file is judged on its resolved path: inside the kernel's
pseudo file systems (or, given a `root`, outside it), it is not read; and only a regular file is
read, at most `limit` bytes, from a descriptor opened without blocking and checked after opening
(so a file swapped for a FIFO between the check and the open is still caught).

    read_file(path, limit, root=None, whole=False) -> bytes
    read_text(path, limit_chars, root=None) -> str            # UTF-8, errors replaced, cut
    read_json(path, limit, root=None, max_depth=64) -> Any    # the whole file, or an error

Every refusal is `NotReadable` (an `OSError`, so `except OSError` callers keep working) with a
message fit for the model or the user; a missing file is `FileNotFoundError` as usual; JSON that
does not parse or nests deeper than `max_depth` is a `ValueError`.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

from pycline.parsing import json_limits

# Pseudo file systems: their "files" are process state (environment, memory, command lines).
_PSEUDO = (Path("/proc"), Path("/sys"), Path("/dev"))


# Settings, secrets, rules and MCP files; hook scripts: far beyond any real one.
MAX_SETTINGS_BYTES = 4 * 1024 * 1024
MAX_HOOK_BYTES = 16 * 1024 * 1024


class NotReadable(OSError):
    """A file pycline will not read on its own; the message says why, for the model or user."""


def resolved_inside(path: Path, root: Path) -> Path:
    """`path` with every symlink resolved, or NotReadable when it leaves `root`."""
    real = resolved_outside_pseudo(path)
    try:
        base = root.resolve(strict=False)
    except (OSError, RuntimeError) as exc:
        raise NotReadable(f"{root.name} cannot be resolved ({exc})") from None
    if not real.is_relative_to(base):
        raise NotReadable(f"{path.name} resolves to {real}, outside {base}")
    return real


def resolved_outside_pseudo(path: Path) -> Path:
    """`path` with every symlink resolved, or NotReadable when it lands in /proc, /sys or /dev."""
    try:
        real = path.resolve(strict=False)
    except (OSError, RuntimeError) as exc:  # a symlink loop, a name too long
        raise NotReadable(f"{path.name} cannot be resolved ({exc})") from None
    if any(real == p or real.is_relative_to(p) for p in _PSEUDO):
        raise NotReadable(f"{path.name} points into {real}, a system file that is never read")
    return real


def read_file(path: Path, limit: int, *, root: Path | None = None, whole: bool = False) -> bytes:
    """At most `limit` bytes of the regular file `path` resolves to (inside `root` if given).

    With `whole`, a file longer than `limit` is refused (NotReadable) rather than cut: for files
    that mean nothing in part, such as JSON."""
    real = resolved_inside(path, root) if root is not None else resolved_outside_pseudo(path)
    data = read_regular(real, limit + 1 if whole else limit)
    if whole and len(data) > limit:
        raise NotReadable(f"{path.name} is larger than {limit:,} bytes; it was not read")
    return data


def read_text(path: Path, limit_chars: int, *, root: Path | None = None) -> str:
    """The file as UTF-8 text (undecodable bytes replaced), at most `limit_chars` characters."""
    data = read_file(path, limit_chars * 4, root=root)
    return data.decode("utf-8", errors="replace")[:limit_chars]


def read_json(
    path: Path, limit: int, *, root: Path | None = None, max_depth: int = json_limits.MAX_DEPTH
) -> Any:
    """The JSON value in the whole file; ValueError when it does not parse or nests too deep."""
    return json_limits.loads(read_file(path, limit, root=root, whole=True), max_depth=max_depth)


def read_regular(path: Path, limit: int) -> bytes:
    """At most `limit` bytes of the regular file at `path`; NotReadable for anything else."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    fd = os.open(path, flags)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise NotReadable(f"{path.name} is not a regular file (a pipe, device or socket)")
        chunks: list[bytes] = []
        left = limit
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def read_confined(path: Path, root: Path, limit: int) -> bytes:
    """`read_regular` of `path` once it is known to resolve inside `root`."""
    return read_regular(resolved_inside(path, root), limit)
