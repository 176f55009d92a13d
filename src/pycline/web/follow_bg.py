"""Following a background task from a page, as `pycline attach` does in a terminal: its events
(the task so far, then live) go to the page like a task of this server's, and the page's answers
and Cancel go back over the task's control socket."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pycline.app.background import client
from pycline.app.background.client import Attachment
from pycline.commands import CommandEnvelope
from pycline.event_wire import WireError, envelope_from_json
from pycline.web.wire import BadRequest, event_json

Send = Callable[[dict[str, Any]], None]


class Followed:
    """The background tasks one page follows, by task id."""

    def __init__(self, send: Send, home: Path) -> None:
        self._send = send
        self.home = home  # where the tasks' secrets are
        self._conns: dict[str, Attachment] = {}
        self._jobs: dict[str, asyncio.Task[None]] = {}

    def follows(self, task_id: str) -> bool:
        return task_id in self._conns

    async def follow(self, bg_id: str, task_id: str) -> None:
        if not task_id:
            raise BadRequest("the background task has no saved task yet")
        if task_id in self._jobs:
            return
        conn = await client.connect(self.home, bg_id, task_id)
        await conn.send({"op": "attach"})
        self._conns[task_id] = conn
        self._jobs[task_id] = asyncio.create_task(self._pump(bg_id, task_id, conn))

    async def _pump(self, bg_id: str, task_id: str, conn: Attachment) -> None:
        try:
            async for message in conn.messages():
                if message.get("kind") == "rejected":
                    self._send(message)  # a command of this page's the task refused
                    continue
                if message.get("type") != "event":
                    continue  # its questions are in the events too; its state is on the board
                try:
                    envelope = envelope_from_json(message.get("event"))
                except WireError:
                    continue  # a newer task's event this page cannot show
                batch = [event_json(envelope)]
                self._send({"type": "events", "task_id": task_id, "run": bg_id, "events": batch})
        finally:
            self._conns.pop(task_id, None)
            self._jobs.pop(task_id, None)
            await conn.close()

    async def command(self, sent: CommandEnvelope) -> None:
        """Pass a command on to the task's own process (which answers a refusal)."""
        # To the task it runs now (one it handed off to, after a `new_task`).
        await self._conns[sent.task_id].command(sent.command, request=sent.request)

    async def close(self) -> None:
        jobs = list(self._jobs.values())
        for job in jobs:
            job.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.gather(*jobs, return_exceptions=True)
