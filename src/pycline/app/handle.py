"""A running task as front ends see it: its event stream, its open questions, its controls.

The handle is the task's `Host`: every event the core says is stamped (task id, sequence number,
time), kept for late subscribers, and handed to each subscriber's queue; every question becomes a
`QuestionAsked` event and waits for `answer(question_id, …)` from whichever front end answers
first. Front ends never call into the core directly.
"""

from __future__ import annotations

import asyncio
import itertools
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TYPE_CHECKING, Literal, TypeAlias

from pycline.errors import PyclineError
from pycline.events import (
    Answer,
    Envelope,
    Event,
    Question,
    QuestionAnswered,
    QuestionAsked,
    ToolPartial,
)

if TYPE_CHECKING:
    from pycline.core.modes import Mode
    from pycline.core.options import TaskOutcome
    from pycline.core.task import Task
    from pycline.providers.base import Provider
    from pycline.terminal.background import BackgroundInfo

Status: TypeAlias = Literal["running", "waiting", "completed", "failed", "cancelled"]
Listener: TypeAlias = Callable[[Envelope], None]


class AnswerRejected(PyclineError):
    """No open question has that id, or the answer names an option the question does not offer."""


Answerer: TypeAlias = Callable[[Question], Answer]


class TaskHandle:
    """`answerer`, when given, answers every question at once (a sub-agent's, which no one is
    asked): the question and its answer still go through the event stream."""

    def __init__(self, *, answerer: Answerer | None = None) -> None:
        self.id = ""  # the task's id, known once the task is attached
        self.children: list[TaskHandle] = []  # the sub-agents this task started
        self._answerer = answerer
        self._seq = 0
        self._log: list[Envelope] = []  # the replay for late subscribers
        self._partial_at: dict[str, int] = {}  # a streaming call's newest ToolPartial in the log
        self._queues: list[asyncio.Queue[Envelope | None]] = []
        self._listeners: list[Listener] = []
        self._pending: dict[str, tuple[QuestionAsked, asyncio.Future[Answer]]] = {}
        self._question_ids = itertools.count(1)
        self._status: Status = "running"
        self._closed = False
        self._task: Task | None = None
        self._runner: asyncio.Task[TaskOutcome] | None = None

    # --- the Host seam (called by the core) ----------------------------------------------------

    def say(self, event: Event) -> None:
        if self._closed:
            return  # a background process printing after the task ended: nobody follows it
        self._seq += 1
        envelope = Envelope(self.id, self._seq, time.time(), event)
        self._remember(envelope)
        for listener in self._listeners:
            listener(envelope)
        for queue in self._queues:
            queue.put_nowait(envelope)

    async def ask(self, question: Question) -> Answer:
        question_id = f"{self.id}-q{next(self._question_ids)}"
        asked = QuestionAsked(question_id, question)
        if self._answerer is not None:
            answer = self._answerer(question)
            self.say(asked)
            self.say(QuestionAnswered(question_id, answer))
            return answer
        future: asyncio.Future[Answer] = asyncio.get_running_loop().create_future()
        self._pending[question_id] = (asked, future)
        self._status = "waiting"
        self.say(asked)
        try:
            return await future
        finally:
            self._pending.pop(question_id, None)
            if not self._pending and self._status == "waiting":
                self._status = "running"

    def _remember(self, envelope: Envelope) -> None:
        event = envelope.event
        if isinstance(event, ToolPartial):
            # Only the newest partial state of a call is worth replaying.
            at = self._partial_at.get(event.tool_call_id)
            if at is not None and at == len(self._log) - 1:
                self._log[at] = envelope
                return
            self._partial_at[event.tool_call_id] = len(self._log)
        self._log.append(envelope)

    # --- what front ends use ---------------------------------------------------------------------

    @property
    def status(self) -> Status:
        return self._status

    @property
    def task(self) -> Task:
        assert self._task is not None, "the handle's task is attached before it runs"
        return self._task

    @property
    def pending_questions(self) -> list[QuestionAsked]:
        return [asked for asked, _ in self._pending.values()]

    def subscribe(self, *, replay: bool = True) -> AsyncIterator[Envelope]:
        """Every event from now on (after the task so far, with `replay`); ends with the task."""
        queue: asyncio.Queue[Envelope | None] = asyncio.Queue()
        if replay:
            for envelope in self._log:
                queue.put_nowait(envelope)
        if self._closed:
            queue.put_nowait(None)
        else:
            self._queues.append(queue)
        return self._drain(queue)

    def listen(self, listener: Listener, *, replay: bool = True) -> Callable[[], None]:
        """Call `listener` synchronously with every event (after the task so far, with `replay`),
        as the core says it; returns the function that stops listening.

        For front ends whose output must keep pace with the task (a terminal, a JSON stream read
        by a script) and for the recorder.
        """
        if replay:
            for envelope in self._log:
                listener(envelope)
        self._listeners.append(listener)

        def stop() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return stop

    async def _drain(self, queue: asyncio.Queue[Envelope | None]) -> AsyncIterator[Envelope]:
        try:
            while (envelope := await queue.get()) is not None:
                yield envelope
        finally:
            if queue in self._queues:
                self._queues.remove(queue)

    async def answer(self, question_id: str, answer: Answer) -> None:
        entry = self._pending.get(question_id)
        if entry is None or entry[1].done():
            raise AnswerRejected(f"No open question {question_id!r} in task {self.id}.")
        asked, future = entry
        offered = {o.id for o in asked.question.options}
        if answer.option and answer.option not in offered:
            choices = ", ".join(sorted(offered)) or "none (reply with text)"
            raise AnswerRejected(f"{answer.option!r} is not an option here; choose: {choices}.")
        future.set_result(answer)
        self.say(QuestionAnswered(question_id, answer))

    def cancel(self) -> None:
        if self._runner is not None and not self._runner.done():
            self._runner.cancel()

    async def wait(self) -> TaskOutcome:
        """The outcome once the task ends (cancelled: not completed, reason says so)."""
        assert self._runner is not None
        return await asyncio.shield(self._runner)

    @property
    def done(self) -> bool:
        return self._runner is not None and self._runner.done()

    @property
    def started(self) -> bool:
        return self._runner is not None

    async def compact(self) -> bool:
        return await self.task.compact()

    async def set_mode(self, mode: Mode) -> None:
        self.task.set_mode(mode)

    async def set_model(self, provider: Provider, *, mode: Mode | None = None) -> None:
        """Talk to `provider` from the next request on (in `mode`, default: the current one)."""
        self.task.set_provider(provider, mode=mode)

    def processes(self) -> list[BackgroundInfo]:
        registry = self.task.services.tools.background
        return list(registry.list()) if registry is not None else []

    async def stop_process(self, number: int) -> None:
        """Stop background process `number` (see `processes()`); KeyError when there is none."""
        registry = self.task.services.tools.background
        if registry is None:
            raise KeyError(number)
        await registry.stop(number)

    # --- lifecycle (the session's side) ----------------------------------------------------------

    def attach(self, task: Task) -> None:
        self._task = task
        self.id = task.id

    def run(self, work: Callable[[], Awaitable[TaskOutcome]]) -> None:
        self._runner = asyncio.create_task(self._run(work), name=f"task:{self.id}")

    async def _run(self, work: Callable[[], Awaitable[TaskOutcome]]) -> TaskOutcome:
        from pycline.core.options import TaskOutcome

        try:
            outcome = await work()
        except asyncio.CancelledError:
            self._status = "cancelled"
            return TaskOutcome(False, "The task was cancelled.")
        except BaseException:
            self._status = "failed"
            raise
        else:
            self._status = "completed" if outcome.completed else "failed"
            return outcome
        finally:
            self._close()

    def _close(self) -> None:
        self._closed = True
        for queue in self._queues:
            queue.put_nowait(None)
        self._queues.clear()
        for _, future in self._pending.values():
            future.cancel()
