"""Reading a file pycline opens on its own (rules, mentions, ignore includes) without being led
astray by what the repository put there.

A repository can make `AGENTS.md` a symlink to `/proc/self/environ`, or a FIFO that blocks the
first read forever. Such a file is judged on its resolved path: outside its root, or inside the
kernel's pseudo file systems, it is not read; and only a regular file is read, at most `limit`
bytes, from a descriptor opened without blocking and checked after opening (so a file swapped
for a FIFO between the check and the open is still caught).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

# Pseudo file systems: their "files" are process state (environment, memory, command lines).
_PSEUDO = (Path("/proc"), Path("/sys"), Path("/dev"))


class NotReadable(OSError):
    """A file pycline will not read on its own; the message says why, for the model or user."""


def resolved_inside(path: Path, root: Path) -> Path:
    """`path` with every symlink resolved, or NotReadable when it leaves `root`."""
    try:
        real = path.resolve(strict=False)
        base = root.resolve(strict=False)
    except (OSError, RuntimeError) as exc:  # a symlink loop, a name too long
        raise NotReadable(f"{path.name} cannot be resolved ({exc})") from None
    if any(real == p or real.is_relative_to(p) for p in _PSEUDO):
        raise NotReadable(f"{path.name} points into {real}, a system file that is never read")
    if not real.is_relative_to(base):
        raise NotReadable(f"{path.name} resolves to {real}, outside {base}")
    return real


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


def is_regular(path: Path) -> bool:
    """Whether `path` (symlinks followed) is a regular file; False when it cannot be checked."""
    try:
        return stat.S_ISREG(path.stat().st_mode)
    except (OSError, ValueError):
        return False
