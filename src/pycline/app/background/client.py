"""Talking to a task on the board over its control socket: status, attach, answer, stop.

The same for a background worker's task and a live one of a terminal, web UI or editor; stopping
either cancels the task (saved, resumable), never the process that runs a live one.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from pycline.app.background.paths import BackgroundError, read_secret, socket_path
from pycline.app.background.protocol import MAX_LINE, encode, read_replies
from pycline.app.background.state import FINISHED, load, process_alive
from pycline.command_wire import command_json
from pycline.commands import AnswerQuestion, Cancel, Command
from pycline.events import Answer

CONNECT_TIMEOUT = 5.0
CLOSE_TIMEOUT = 5.0


class Attachment:
    """A live connection to one background task (`task_id`: its saved task)."""

    def __init__(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        task_id: str = "",
        secret: str = "",
    ) -> None:
        self._reader = reader
        self._writer = writer
        self.task_id = task_id
        self._secret = secret  # presented with the first message

    async def messages(self) -> AsyncIterator[dict[str, Any]]:
        """The replay of what happened so far, then live messages, until the task ends (and
        the tasks it hands off to: commands then go to the newest)."""
        while (message := await read_replies(self._reader)) is not None:
            event = message.get("event") if message.get("type") == "event" else None
            if isinstance(event, dict) and isinstance(event.get("task_id"), str):
                self.task_id = event["task_id"]
            yield message

    async def next_message(self) -> dict[str, Any] | None:
        return await read_replies(self._reader)

    async def send(self, message: dict[str, Any]) -> None:
        if self._secret:
            message, self._secret = {**message, "secret": self._secret}, ""
        self._writer.write(encode(message))
        await self._writer.drain()

    async def command(self, command: Command, *, request: str | int | None = None) -> None:
        """Send `command` to the task; its reply comes among the messages."""
        await self.send(command_json(self.task_id, command, request=request))

    async def answer(self, question_id: str, answer: Answer) -> None:
        await self.command(AnswerQuestion(question_id, answer))

    async def close(self) -> None:
        self._writer.close()
        # A peer that stopped reading must not hold the close (a detach, a stop) for ever.
        with contextlib.suppress(ConnectionError, TimeoutError):
            await asyncio.wait_for(self._writer.wait_closed(), CLOSE_TIMEOUT)


async def connect(home: Path, bg_id: str, task_id: str = "") -> Attachment:
    """A connection to background task `bg_id`; commands go to `task_id` (its saved task,
    on the board once the task runs). The task's secret, from `home`, goes with the first
    message."""
    path = socket_path(bg_id)
    secret = read_secret(home, bg_id)
    try:
        reader, writer = await asyncio.wait_for(
            asyncio.open_unix_connection(str(path), limit=MAX_LINE), CONNECT_TIMEOUT
        )
    except (OSError, TimeoutError) as exc:
        raise BackgroundError(f"task {bg_id} is not running ({exc})") from exc
    return Attachment(reader, writer, task_id, secret)


@contextlib.asynccontextmanager
async def attach(home: Path, bg_id: str, task_id: str = "") -> AsyncIterator[Attachment]:
    conn = await connect(home, bg_id, task_id)
    try:
        await conn.send({"op": "attach"})
        yield conn
    finally:
        await conn.close()


async def stop(home: Path, bg_id: str) -> str:
    """Ask the task to stop (it is saved and can be resumed); a dead socket falls back to SIGTERM."""
    state = load(home, bg_id)
    if state is None:
        raise BackgroundError(f"no task {bg_id!r} on the board (see `pycline tasks`)")
    if state.status in FINISHED:
        return f"{bg_id} has already ended ({state.status})"
    try:
        conn = await connect(home, bg_id, state.task_id or "")
    except BackgroundError:
        if not process_alive(state.pid):
            return f"{bg_id} is not running"
        if state.front_end != "background":
            # The process is the user's terminal, web UI or editor: never ended from here.
            raise
        with contextlib.suppress(ProcessLookupError):
            os.kill(state.pid, signal.SIGTERM)
        return f"{bg_id}: sent SIGTERM to process {state.pid}"
    try:
        await conn.command(Cancel())
        reply = await asyncio.wait_for(conn.next_message(), 30)
    except (TimeoutError, ConnectionError):
        reply = None
    finally:
        await conn.close()
    return f"{bg_id} stopped" if reply is not None else f"{bg_id}: stop requested"


async def answer(home: Path, bg_id: str, question_id: str, reply: Answer) -> None:
    """Answer a waiting background task's question without attaching to it."""
    state = load(home, bg_id)
    if state is None:
        raise BackgroundError(f"no task {bg_id!r} on the board (see `pycline tasks`)")
    conn = await connect(home, bg_id, state.task_id or "")
    try:
        await conn.answer(question_id, reply)
        response = await asyncio.wait_for(conn.next_message(), 30)
    except (TimeoutError, ConnectionError) as exc:
        raise BackgroundError(f"background task {bg_id} did not take the answer ({exc})") from exc
    finally:
        await conn.close()
    if response is None or response.get("kind") != "accepted":
        message = (response or {}).get("error") or "the answer was not accepted"
        raise BackgroundError(f"{bg_id}: {message}")
