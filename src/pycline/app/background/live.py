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

from pycline.app.background import state as bg_state
from pycline.app.background.paths import make_secret
from pycline.app.background.server import BackgroundServer
from pycline.app.background.state import BgState, FrontEnd, process_start
from pycline.app.live.handle import TaskHandle


def go_live(home: Path, front_end: FrontEnd, handle: TaskHandle, workspace: Path) -> LiveTask:
    """Put `handle`'s task (just started) on the board; `serve()` its socket until it ends.

    The record goes the moment the task ends, before the front end that runs it hears of it
    (a `pycline tasks` typed after the task ended never lists it); the socket soon after."""
    state = BgState(
        id="live-" + secrets.token_hex(6),
        task=handle.title,
        workspace=str(workspace),
        pid=os.getpid(),
        status="starting",
        started=time.time(),
        task_id=handle.id,
        front_end=front_end,
        pid_start=process_start(os.getpid()),
    )
    make_secret(home, state.id)
    handle.when_done(lambda: bg_state.forget(home, state.id))
    return LiveTask(BackgroundServer(home, state, None, handle))


class LiveTask:
    def __init__(self, server: BackgroundServer) -> None:
        self._server = server

    async def serve(self) -> None:
        server = self._server
        try:
            await server.open()
            # However it ends (its failure is for whoever runs it to report).
            with contextlib.suppress(Exception):
                await server.handle.wait()
        finally:
            with contextlib.suppress(OSError):
                await asyncio.shield(server.close(keep=False))
