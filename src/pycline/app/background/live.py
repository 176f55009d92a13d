"""Live tasks: a task the user's terminal, web UI or editor runs, on the board while it runs.

The same record and control socket as a background task's (`BackgroundServer`), so `pycline
tasks`, `pycline attach`, `pycline stop` and the web UI's list reach any task on the machine. The
record goes when the task ends; one left by a process that died is dropped by the board.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import time
from pathlib import Path

from pycline.app.background.paths import make_secret
from pycline.app.background.server import BackgroundServer
from pycline.app.background.state import BgState, FrontEnd, process_start
from pycline.app.handle import TaskHandle


def new_live_id() -> str:
    return "live-" + secrets.token_hex(6)


async def serve_live(home: Path, front_end: FrontEnd, handle: TaskHandle, workspace: Path) -> None:
    """Put `handle`'s task on the board and serve its socket until the task ends."""
    state = BgState(
        id=new_live_id(),
        task=handle.title,
        workspace=str(workspace),
        pid=os.getpid(),
        pid_start=process_start(os.getpid()),
        status="starting",
        started=time.time(),
        task_id=handle.id,
        front_end=front_end,
    )
    make_secret(home, state.id)
    server = BackgroundServer(home, state, None, handle)
    try:
        await server.open()
        # However it ends (its failure is for whoever runs it to report), or the session closes.
        with contextlib.suppress(Exception):
            await handle.wait()
    finally:
        with contextlib.suppress(OSError):
            await asyncio.shield(server.close(keep=False))
