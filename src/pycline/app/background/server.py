"""The inside of a background task's process: the task's Host, and its control socket.

Events are kept (for late attachers) and sent to every attached client; a question waits until
some client answers it, with the task shown as `waiting` on the board meanwhile. The state file is
rewritten on every change of status, question or cost, so the board needs no socket to list it.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
import signal
import time
from collections import deque
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any, Protocol

from pycline.app.background import state as bg_state
from pycline.app.background.paths import socket_path
from pycline.app.background.protocol import (
    MAX_LINE,
    answer_from_json,
    as_json,
    encode,
    read_message,
)
from pycline.app.background.state import BgState, BgStatus
from pycline.events import Answer, CompletionQuestion, Event, Host, Question

REPLAY_LIMIT = 5000


class Outcome(Protocol):
    @property
    def completed(self) -> bool: ...

    @property
    def reason(self) -> str: ...


Runner = Callable[[Host], Coroutine[Any, Any, Outcome]]


class BackgroundServer:
    """Host of one task, and the server of its control socket."""

    def __init__(self, home: Path, state: BgState) -> None:
        self.home = home
        self.state = state
        self._replay: deque[dict[str, Any]] = deque(maxlen=REPLAY_LIMIT)
        self._clients: set[asyncio.Queue[dict[str, Any] | None]] = set()
        self._ids = itertools.count(1)
        self._pending: dict[int, tuple[dict[str, Any], asyncio.Future[Answer]]] = {}
        self._task: asyncio.Task[Outcome] | None = None
        self._saving = asyncio.Lock()

    # --- Host ---------------------------------------------------------------------------------

    def say(self, event: Event) -> None:
        data = as_json(event)
        kind = data.get("kind")
        if kind == "usage" and isinstance(data.get("task_cost"), int | float):
            self._update(cost=float(data["task_cost"]))
        elif kind == "task_started" and isinstance(data.get("task_id"), str):
            self._update(task_id=data["task_id"])
        self._publish({"type": "event", "event": data})

    async def ask(self, question: Question) -> Answer:
        if isinstance(question, CompletionQuestion):
            return Answer("yes")  # a background task ends when the model says it is done
        qid = next(self._ids)
        message = {"type": "question", "question_id": qid, "question": as_json(question)}
        future: asyncio.Future[Answer] = asyncio.get_running_loop().create_future()
        self._pending[qid] = (message, future)
        self._update(status="waiting", question=message)
        self._publish(message)
        try:
            return await future
        finally:
            del self._pending[qid]
            self._update(status="running", question=self._next_question())
            self._publish({"type": "answered", "question_id": qid})

    def _next_question(self) -> dict[str, Any] | None:
        return next((m for m, _ in self._pending.values()), None)

    # --- state --------------------------------------------------------------------------------

    def _update(self, **changes: Any) -> None:
        if changes.get("question") is not None:
            changes.setdefault("status", "waiting")
        self.state = self.state.updated(**changes)
        snapshot = self.state
        asyncio.get_running_loop().create_task(self._save(snapshot))

    async def _save(self, snapshot: BgState) -> None:
        async with self._saving:
            # The newest state wins even if saves queue up behind a slow disk.
            if snapshot is self.state:
                await asyncio.to_thread(bg_state.save, self.home, snapshot)

    def _publish(self, message: dict[str, Any]) -> None:
        self._replay.append(message)
        for queue in self._clients:
            queue.put_nowait(message)

    # --- running ------------------------------------------------------------------------------

    async def run(self, runner: Runner) -> BgState:
        path = socket_path(self.state.id)
        path.unlink(missing_ok=True)
        old = os.umask(0o177)  # the socket is created 0600: only this user may connect
        try:
            server = await asyncio.start_unix_server(self._serve, path=str(path), limit=MAX_LINE)
        finally:
            os.umask(old)
        loop = asyncio.get_running_loop()
        loop.add_signal_handler(signal.SIGTERM, self.stop)
        loop.add_signal_handler(signal.SIGINT, self.stop)
        self._update(status="running", pid=os.getpid())
        status: BgStatus = "failed"
        reason = ""
        try:
            self._task = asyncio.create_task(runner(self))
            try:
                outcome = await self._task
                status = "completed" if outcome.completed else "failed"
                reason = "" if outcome.completed else outcome.reason
            except asyncio.CancelledError:
                status, reason = "cancelled", "stopped"
            except Exception as exc:  # the board shows why; the process still ends cleanly
                status, reason = "failed", f"{type(exc).__name__}: {exc}"
        finally:
            self.state = self.state.updated(
                status=status, reason=reason, question=None, ended=time.time()
            )
            await asyncio.to_thread(bg_state.save, self.home, self.state)
            self._publish({"type": "ended", "status": status, "reason": reason})
            for queue in self._clients:
                queue.put_nowait(None)
            server.close()
            path.unlink(missing_ok=True)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(server.wait_closed(), 5)
        return self.state

    def stop(self) -> None:
        if self._task is not None and not self._task.done():
            self._task.cancel()

    # --- clients ------------------------------------------------------------------------------

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            request = await read_message(reader)
            op = request.get("op") if request else None
            if op == "status":
                writer.write(encode({"type": "state", "state": self.state.to_json()}))
            elif op == "stop":
                self.stop()
                writer.write(encode({"type": "stopping"}))
            elif op == "answer" and request is not None:
                writer.write(encode(self._answer(request)))
            elif op == "attach":
                await self._attached(reader, writer)
            else:
                writer.write(encode({"type": "error", "message": f"unknown op {op!r}"}))
            await writer.drain()
        except ConnectionError:
            pass  # the client went away; the task carries on
        finally:
            writer.close()
            with contextlib.suppress(ConnectionError):
                await writer.wait_closed()

    def _answer(self, request: dict[str, Any]) -> dict[str, Any]:
        qid = request.get("question_id")
        pending = self._pending.get(qid) if isinstance(qid, int) else None
        if pending is None or pending[1].done():
            return {"type": "error", "message": f"no open question {qid!r}"}
        answer = answer_from_json(request.get("answer"))
        if answer is None:
            return {"type": "error", "message": "malformed answer"}
        pending[1].set_result(answer)
        return {"type": "accepted", "question_id": qid}

    async def _attached(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        queue: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()
        writer.write(encode({"type": "state", "state": self.state.to_json()}))
        for message in self._replay:
            writer.write(encode(message))
        if self.state.status in bg_state.FINISHED:
            return
        self._clients.add(queue)

        async def forward() -> None:
            while (message := await queue.get()) is not None:
                writer.write(encode(message))
                await writer.drain()

        async def listen() -> None:
            while (request := await read_message(reader)) is not None:
                if request.get("op") == "answer":
                    reply = self._answer(request)
                    if reply["type"] == "error":
                        writer.write(encode(reply))
                elif request.get("op") == "stop":
                    self.stop()

        sending, receiving = asyncio.create_task(forward()), asyncio.create_task(listen())
        try:
            await asyncio.wait({sending, receiving}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            self._clients.discard(queue)
            for job in (sending, receiving):
                job.cancel()
            await asyncio.gather(sending, receiving, return_exceptions=True)
