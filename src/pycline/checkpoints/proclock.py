"""A lock shared by every pycline process working on one shadow repository.

Git's own lock files make a second writer fail at once ("index.lock: File exists", "could not lock
config file") rather than wait, so two tasks in the same workspace would break each other's
checkpoints. Waiting is done by polling a non-blocking `flock`, so it can be cancelled and bounded.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path

from pycline.checkpoints.types import CheckpointError
from pycline.storage.flock import held

LOCK_NAME = "pycline.lock"


@contextlib.asynccontextmanager
async def process_lock(git_dir: Path, *, timeout: float) -> AsyncIterator[None]:
    git_dir.mkdir(parents=True, exist_ok=True)

    def busy() -> CheckpointError:
        return CheckpointError(
            f"another pycline process kept the checkpoints of this workspace busy for {timeout:g}s"
        )

    async with held(git_dir / LOCK_NAME, timeout=timeout, busy=busy):
        yield
