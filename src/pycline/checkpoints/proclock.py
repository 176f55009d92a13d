"""A lock shared by every pycline process working on one shadow repository.

Git's own lock files make a second writer fail at once ("index.lock: File exists", "could not lock
config file") rather than wait, so two tasks in the same workspace would break each other's
checkpoints. Waiting is done by polling a non-blocking `flock`, so it can be cancelled and bounded.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import os
import time
from collections.abc import AsyncIterator
from pathlib import Path

from pycline.checkpoints.types import CheckpointError

LOCK_NAME = "pycline.lock"
_POLL = 0.02


@contextlib.asynccontextmanager
async def process_lock(git_dir: Path, *, timeout: float) -> AsyncIterator[None]:
    git_dir.mkdir(parents=True, exist_ok=True)
    fd = os.open(git_dir / LOCK_NAME, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise CheckpointError(
                        f"another pycline process kept the checkpoints of this workspace busy "
                        f"for {timeout:g}s"
                    ) from None
                await asyncio.sleep(_POLL)
        yield
    finally:
        os.close(fd)  # closing releases the lock
