"""A lock file shared by pycline processes, waited for without blocking the event loop.

Waiting polls a non-blocking `flock`, so it can be cancelled and bounded; closing the file
releases the lock (also when the process dies).
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import os
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path

POLL = 0.02


@contextlib.asynccontextmanager
async def held(
    path: Path, *, timeout: float, busy: Callable[[], Exception], poll: float = POLL
) -> AsyncIterator[None]:
    """Hold the lock on `path` (made if missing); `busy()` is raised after `timeout` seconds."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise busy() from None
                await asyncio.sleep(poll)
        yield
    finally:
        os.close(fd)
