"""Session updates go out in order, off the task's loop: `Host.say` is synchronous."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any, Protocol

log = logging.getLogger("pycline.acp")


class UpdateSink(Protocol):
    async def session_update(self, session_id: str, update: Any) -> None: ...


class Outbox:
    def __init__(self, conn: UpdateSink, session_id: str) -> None:
        self.conn = conn
        self.session_id = session_id
        self._queue: asyncio.Queue[Any] = asyncio.Queue()
        self._pump = asyncio.create_task(self._run(), name=f"acp:updates:{session_id}")

    def send(self, update: Any) -> None:
        self._queue.put_nowait(update)

    async def drain(self) -> None:
        """Return once every update queued so far has been written."""
        await self._queue.join()

    async def close(self) -> None:
        self._pump.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._pump

    async def _run(self) -> None:
        while True:
            update = await self._queue.get()
            try:
                await self.conn.session_update(self.session_id, update)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # a client that drops one update must not stop the rest
                log.warning("session update not delivered: %s", exc)
            finally:
                self._queue.task_done()
