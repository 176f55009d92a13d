"""A task's control socket in front of its TaskHandle: a background worker's, or a live task's
that a terminal, web UI or editor runs (`pycline.app.background.live`).

The handle keeps every event for late subscribers, so an attaching client gets the task so far
and then live events; questions still open when it attaches (and new ones) are also sent as
`question` messages to answer. The state file is rewritten on every change of status, question or
cost, so the board lists tasks without touching their sockets.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
import signal
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from pycline.app.background import state as bg_state
from pycline.app.background.paths import read_secret, socket_path
from pycline.app.background.protocol import MAX_LINE, encode, read_message
from pycline.app.background.state import BgState
from pycline.app.live.handle import CommandRejected, TaskHandle
from pycline.command_wire import accepted, command_from_json, rejected, request_of
from pycline.commands import AnswerQuestion, Cancel
from pycline.core.options import TaskOutcome
from pycline.event_wire import WireError, envelope_json
from pycline.event_wire import encode as wire_encode
from pycline.events import (
    ACCEPT,
    Answer,
    CompletionQuestion,
    Envelope,
    QuestionAnswered,
    QuestionAsked,
    TaskStarted,
    Usage,
)
from pycline.storage.runtime import client_refusal

# Runs a task and those it hands off to (`app.runner.run_chain` in the worker's session), telling
# `continued(previous, next)` of each hand-off; the last task's outcome.
Chain = Callable[[TaskHandle, Callable[[TaskHandle, TaskHandle], None]], Awaitable[TaskOutcome]]


class BackgroundServer:
    """Serves `handle`'s task, and for a background worker (`run`) the tasks it hands off to
    (`new_task`), run by `chain`. A background task takes its result as it is; a live task's
    completion is a question like any other, for whoever follows it."""

    def __init__(
        self,
        home: Path,
        state: BgState,
        chain: Chain | None,
        handle: TaskHandle,
    ) -> None:
        self.home = home
        self.state = state
        self.chain = chain
        self.handle = handle
        self._background = state.front_end == "background"
        self._server: asyncio.AbstractServer | None = None
        self._stop_listening: Callable[[], None] = lambda: None
        self._moved = asyncio.Event()  # set when the task hands off, or the last one ends
        self._last_seq = 0
        self._saving = asyncio.Lock()
        self._jobs: set[asyncio.Task[Any]] = set()
        self._secret = ""  # read when the socket opens: what every client must present

    # --- following the task -------------------------------------------------------------------

    def _on_event(self, envelope: Envelope) -> None:
        self._last_seq = envelope.seq
        match envelope.event:
            case Usage(task_cost=cost):
                self._update(cost=cost)
            case TaskStarted(task_id=task_id):
                self._update(task_id=task_id)
            case QuestionAsked(question_id=qid, question=CompletionQuestion()) if self._background:
                # A background task ends when the model says it is done.
                self._spawn(self.handle.send(AnswerQuestion(qid, Answer(ACCEPT.id))))
            case QuestionAsked():
                self._update(status="waiting", question=self._question_message())
            case QuestionAnswered():
                waiting = bool(self.handle.pending_questions)
                self._update(
                    status="waiting" if waiting else "running", question=self._question_message()
                )
            case _:
                pass

    def _question_message(self) -> dict[str, Any] | None:
        for asked in self.handle.pending_questions:
            if self._asks(asked):
                return _question(asked)
        return None

    def _asks(self, asked: QuestionAsked) -> bool:
        """Whether a question is for the clients to answer."""
        return not (self._background and isinstance(asked.question, CompletionQuestion))

    def _update(self, **changes: Any) -> None:
        self.state = self.state.updated(**changes)
        self._spawn(self._save(self.state))

    def _spawn(self, work: Any) -> None:
        job = asyncio.get_running_loop().create_task(work)
        self._jobs.add(job)
        job.add_done_callback(self._jobs.discard)

    async def _save(self, snapshot: BgState) -> None:
        async with self._saving:
            # Only the newest state is worth writing; a live task's record goes when it ends.
            if snapshot is self.state and (self._background or not self.handle.done):
                await asyncio.to_thread(bg_state.save, self.home, snapshot)

    # --- running ------------------------------------------------------------------------------

    async def open(self) -> None:
        """Listen on the task's socket and follow the task on the board."""
        self._secret = read_secret(self.home, self.state.id)
        path = socket_path(self.state.id)
        path.unlink(missing_ok=True)
        old = os.umask(0o177)  # the socket is created 0600: only this user may connect
        try:
            self._server = await asyncio.start_unix_server(
                self._serve, path=str(path), limit=MAX_LINE
            )
        finally:
            os.umask(old)
        self._stop_listening = self.handle.listen(self._on_event)
        self._update(status="running", pid=os.getpid(), task_id=self.handle.id)

    async def close(self, reason: str = "", *, keep: bool = True) -> BgState:
        """Stop serving; the final state, saved when `keep` (else the record is removed)."""
        self._stop_listening()
        self._moved.set()
        status = self.handle.status if self.handle.status in bg_state.FINISHED else "failed"
        self.state = self.state.updated(
            status=status, reason=reason, question=None, ended=time.time()
        )
        if keep:
            await asyncio.to_thread(bg_state.save, self.home, self.state)
        else:
            async with self._saving:  # no pending write may bring the record back
                await asyncio.to_thread(bg_state.forget, self.home, self.state.id)
        if self._server is not None:
            self._server.close()
            socket_path(self.state.id).unlink(missing_ok=True)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._server.wait_closed(), 5)
        return self.state

    async def run(self) -> BgState:
        """A background worker's task: serve the socket until it (and what it hands off to)
        ends; the final state (also saved)."""
        assert self.chain is not None
        await self.open()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, self.handle.post, Cancel())

        def continued(_: TaskHandle, following: TaskHandle) -> None:
            self._stop_listening()
            self.handle, self._last_seq = following, 0
            self._stop_listening = following.listen(self._on_event)
            self._update(task_id=following.id)
            moved, self._moved = self._moved, asyncio.Event()
            moved.set()

        reason = ""
        try:
            outcome = await self.chain(self.handle, continued)
            reason = "" if outcome.completed else outcome.reason
        except Exception as exc:  # the board shows why; the process still ends cleanly
            reason = f"{type(exc).__name__}: {exc}"
        finally:
            await self.close(reason)
        return self.state

    # --- clients ------------------------------------------------------------------------------

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            request = await self._first_message(reader, writer)
            # The first message carries the task's secret; a command in it is read without.
            given = request.pop("secret", None) if request is not None else None
            refused = client_refusal(writer.get_extra_info("socket"), self._secret, given)
            op = request.get("op") if request else None
            if request is not None and refused is not None:
                writer.write(encode(rejected(self.handle.id, refused, request_of(request))))
            elif op == "status":
                writer.write(encode({"type": "state", "state": self.state.to_json()}))
            elif op == "attach":
                await self._attached(reader, writer)
            elif request is not None:
                writer.write(encode(await self._command(request)))
            await writer.drain()
        except ConnectionError:
            pass  # the client went away; the task carries on
        finally:
            writer.close()
            with contextlib.suppress(ConnectionError):
                await writer.wait_closed()

    async def _first_message(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> dict[str, Any] | None:
        """The first well-formed message; each line before it that is not one (too long, not
        JSON) gets a `rejected` reply, and the connection goes on."""
        while True:
            try:
                return await read_message(reader)
            except WireError as exc:
                writer.write(encode(rejected(self.handle.id, str(exc))))
                await writer.drain()

    async def _command(self, data: dict[str, Any]) -> dict[str, Any]:
        """Carry out one command; its reply (rejected, with the reason, for anything amiss)."""
        try:
            sent = command_from_json(data)
            if sent.task_id != self.handle.id:
                raise CommandRejected(
                    f"This socket serves task {self.handle.id}, not {sent.task_id!r}."
                )
            command = sent.command
            if isinstance(command, AnswerQuestion) and not command.by:
                command = dataclasses.replace(command, by="pycline attach")
            await self.handle.send(command)
        except (WireError, CommandRejected) as exc:
            return rejected(self.handle.id, str(exc), request_of(data))
        return accepted(sent.task_id, sent.request)

    async def _attached(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        seen = self._last_seq
        open_now = {q.question_id for q in self.handle.pending_questions}
        writer.write(encode({"type": "state", "state": self.state.to_json()}))

        async def forward() -> None:
            nonlocal seen, open_now
            handle = self.handle
            while True:
                async for envelope in handle.subscribe(replay=True):
                    writer.write(encode({"type": "event", "event": envelope_json(envelope)}))
                    event = envelope.event
                    if (
                        isinstance(event, QuestionAsked)
                        and self._asks(event)
                        and (envelope.seq > seen or event.question_id in open_now)
                    ):
                        writer.write(encode(_question(event)))
                    await writer.drain()
                if self.handle is handle:
                    await self._moved.wait()  # a hand-off starts the next task, or none does
                if self.handle is handle:
                    break
                handle, seen, open_now = self.handle, 0, set()  # the next task, from its start
            writer.write(encode({"type": "ended", "status": self.handle.status}))
            await writer.drain()

        async def listen() -> None:
            while True:
                try:
                    request = await read_message(reader)
                except WireError as exc:
                    writer.write(encode(rejected(self.handle.id, str(exc))))
                    continue
                if request is None:
                    return
                writer.write(encode(await self._command(request)))

        sending, receiving = asyncio.create_task(forward()), asyncio.create_task(listen())
        try:
            await asyncio.wait({sending, receiving}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for job in (sending, receiving):
                job.cancel()
            await asyncio.gather(sending, receiving, return_exceptions=True)


def _question(asked: QuestionAsked) -> dict[str, Any]:
    return {
        "type": "question",
        "question_id": asked.question_id,
        "question": wire_encode(asked.question),
    }
