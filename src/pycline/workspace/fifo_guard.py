"""Git run over a workspace that holds a FIFO where git reads its own files.

Git opens every `.gitignore` (and `.gitattributes`, `.gitmodules`) on its way through a work tree
with a plain blocking `open`: a repository that ships one as a FIFO stops `git status`,
`git ls-files` and a checkpoint's `git add` until their timeout. Scanning the whole tree before
every git call would cost as much as git's own walk, so the scan happens only when git is seen
blocked in exactly that way (Linux reports it as `wait_for_partner` in `/proc/<pid>/wchan`): each
such FIFO is then opened for writing without blocking and closed at once, which lets git's open
return and its read see an empty file. Only FIFOs a git process is waiting on are touched (opening
one nobody reads fails), and only under those names.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import stat
from pathlib import Path
from typing import Final

GIT_OWN_FILES: Final = frozenset({".gitignore", ".gitattributes", ".gitmodules"})
POLL_SECONDS: Final = 0.2
_BLOCKED_ON_FIFO: Final = "wait_for_partner"  # the kernel function a FIFO open sleeps in

# FIFOs found per work tree, tried first when git blocks again (the common case: the same one).
_known: dict[Path, list[Path]] = {}


async def communicate(
    proc: asyncio.subprocess.Process, work_tree: Path, stdin: bytes | None = None
) -> tuple[bytes, bytes]:
    """`proc.communicate(stdin)`, releasing the git process whenever it blocks on a FIFO of
    `work_tree`. Cancel it (or wrap it in a timeout) to bound the wait; the caller kills."""
    talking = asyncio.ensure_future(proc.communicate(stdin))
    try:
        while True:
            done, _ = await asyncio.wait({talking}, timeout=POLL_SECONDS)
            if done:
                return talking.result()
            if blocked_on_fifo(proc.pid):
                await asyncio.to_thread(release_fifos, work_tree)
    finally:
        if not talking.done():
            talking.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await talking


def blocked_on_fifo(pid: int) -> bool:
    """Whether a thread of process `pid` sleeps opening a FIFO (False where /proc cannot say)."""
    try:
        threads = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return False
    for tid in threads:
        with contextlib.suppress(OSError):
            if Path(f"/proc/{pid}/task/{tid}/wchan").read_text("ascii").strip() == _BLOCKED_ON_FIFO:
                return True
    return False


def release_fifos(work_tree: Path) -> int:
    """Open and close for writing every git-own-file FIFO in `work_tree` that a reader waits on;
    how many were released."""
    known = _known.get(work_tree, [])
    released = sum(_release(p) for p in known)
    if released:
        return released
    found = find_fifos(work_tree)
    _known[work_tree] = found
    return sum(_release(p) for p in found)


def find_fifos(root: Path) -> list[Path]:
    """FIFOs named like git's own files anywhere below `root`, `.git` folders left out. (Git
    does not follow a symlinked `.gitignore` in the work tree, so a link to a FIFO is no risk.)"""
    found: list[Path] = []
    stack = [root]
    while stack:
        folder = stack.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            with contextlib.suppress(OSError):
                if entry.is_dir(follow_symlinks=False):
                    if entry.name != ".git":
                        stack.append(Path(entry.path))
                elif entry.name in GIT_OWN_FILES and stat.S_ISFIFO(
                    entry.stat(follow_symlinks=False).st_mode
                ):
                    found.append(Path(entry.path))
    return found


def _release(path: Path) -> bool:
    flags = os.O_WRONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags)
    except OSError:  # ENXIO: nobody is reading it; or it is gone
        return False
    os.close(fd)
    return True
