"""A running task as front ends see it: its event stream, its open questions, its commands.

The handle is the task's `Host`: every event the core says is stamped (task id, sequence number,
time), kept for late subscribers, and handed to each subscriber's queue; every question becomes a
`QuestionAsked` event and waits for an answer from whichever front end answers first. Front ends
never call into the core: `send(command)` is the only way in (`pycline.commands`), and a command
that cannot be carried out is refused with its reason (`CommandRejected`), the task unharmed.
"""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TYPE_CHECKING, Literal, TypeAlias, assert_never

from pycline.app.live.task_controls import TaskControls
from pycline.commands import (
    AnswerQuestion,
    Cancel,
    CancelQueued,
    Command,
    Compact,
    EditQueued,
    ProceedWhileRunning,
    SetApprovalPolicy,
    SetGoal,
    SetMode,
    SetModel,
    StopProcess,
    UserMessage,
)
from pycline.errors import PyclineError
from pycline.events import (
    ACCEPT,
    CONTINUE,
    Answer,
    ApprovalQuestion,
    CompletionQuestion,
    Envelope,
    ErrorEvent,
    Event,
    FollowupQuestion,
    MistakeLimitQuestion,
    PlanQuestion,
    Question,
    QuestionAnswered,
    QuestionAsked,
    QueuedMessage,
    ToolPartial,
    merge_partial,
)

if TYPE_CHECKING:
    from pycline.app.settings.config import ModelConfig
    from pycline.core.modes import Mode
    from pycline.core.options import TaskOutcome
    from pycline.core.task import Task
    from pycline.providers.base import Provider
    from pycline.terminal.background import BackgroundInfo

Status: TypeAlias = Literal["running", "waiting", "completed", "failed", "cancelled"]
Listener: TypeAlias = Callable[[Envelope], None]
# The session's way to another model: (the mode's model now, `[PROVIDER/]MODEL`) -> the new one.
ModelSwitch: TypeAlias = "Callable[[ModelConfig, str], tuple[ModelConfig, Provider]]"
MAX_IMAGES = 20  # pasted images with one answer


class CommandRejected(PyclineError):
    """A command the task cannot carry out now; the message says why."""


class AnswerRejected(CommandRejected):
    """No open question has that id, or the answer does not fit the question."""


Answerer: TypeAlias = Callable[[Question], Answer]
_ANSWERED_BY_A_MESSAGE = (FollowupQuestion, CompletionQuestion, PlanQuestion, MistakeLimitQuestion)


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
        self._controls: TaskControls | None = None
        self._configs: dict[Mode, ModelConfig] = {}  # the model each mode talks to
        self._switch: ModelSwitch | None = None
        self._posted: set[asyncio.Task[None]] = set()
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
        if (taken := self._queued_for(question)) is not None:
            # Messages sent while the task worked answer the question it asks next.
            from pycline.core.steering import joined

            answer = _reply(question, *joined(taken))
            self.say(asked)
            self.say(self._live_controls().steering.event(delivered=taken))
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
            # A streaming call is kept once, as far as it has come: each partial replaces the
            # call's entry with one holding every parameter whole (`replaced`, so a page that
            # already holds the call's start and replays this does not append it twice), moved
            # to the end so the log's order and sequence numbers stay those of the stream. The
            # replay stays the size of the task however finely the call streamed.
            at = self._partial_at.pop(event.tool_call_id, None)
            whole: dict[str, str] = {}
            if at is not None:
                earlier = self._log.pop(at).event
                assert isinstance(earlier, ToolPartial)
                whole = dict(earlier.params)
                for call, index in self._partial_at.items():
                    if index > at:
                        self._partial_at[call] = index - 1
            whole = merge_partial(whole, event)
            merged = ToolPartial(event.tool_call_id, event.tool, whole, tuple(whole))
            envelope = dataclasses.replace(envelope, event=merged)
            self._partial_at[event.tool_call_id] = len(self._log)
        self._log.append(envelope)

    # --- what front ends use ---------------------------------------------------------------------

    @property
    def status(self) -> Status:
        return self._status

    @property
    def pending_questions(self) -> list[QuestionAsked]:
        """The questions waiting for an answer (one answered is gone at once)."""
        return [asked for asked, future in self._pending.values() if not future.done()]

    @property
    def title(self) -> str:
        """The task's first message."""
        return self._live_controls().title

    @property
    def mode(self) -> Mode:
        return self._live_controls().mode

    def models(self) -> dict[str, str]:
        """`provider/model` of each mode ("act", "plan")."""
        return self._live_controls().models()

    def model_config(self, mode: str) -> ModelConfig:
        """How the task reaches the model of `mode` ("act" or "plan"): provider, server, key."""
        return self._configs.get("plan" if mode == "plan" else "act") or self._configs["act"]

    def processes(self) -> list[BackgroundInfo]:
        """The task's background processes (dev servers a command left running)."""
        return self._live_controls().processes()

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

    async def send(self, command: Command) -> None:
        """Carry out `command`; `CommandRejected`, saying why, when it cannot be."""
        match command:
            case AnswerQuestion(question_id=question_id, answer=answer, by=by):
                await self._answer(question_id, answer, by)
            case UserMessage(text=text, images=images, interrupt=interrupt):
                asked = self._waiting_for_a_message()
                if asked is None:
                    self._queue(text, images, interrupt=interrupt)
                else:
                    await self._answer(asked.question_id, _reply(asked.question, text, images))
            case EditQueued(message_id=message_id, text=text):
                if not text.strip():
                    raise CommandRejected("A queued message needs some text; cancel it instead.")
                self._change_queue(self._running_controls().steering.edit(message_id, text))
            case CancelQueued(message_id=message_id):
                self._change_queue(self._running_controls().steering.cancel(message_id))
            case Cancel():
                self._cancel()
            case Compact():
                if not await self._running_controls().compact():
                    raise CommandRejected("The conversation was not condensed.")
            case SetMode(mode=mode):
                self._running_controls().set_mode(mode)
            case SetModel(model=spec, mode=which):
                self._set_model(spec, which)
            case SetApprovalPolicy(policy=policy):
                self._running_controls().set_policy(policy)
            case ProceedWhileRunning():
                if not self._running_controls().proceed():
                    raise CommandRejected("This task cannot proceed while a command runs.")
            case StopProcess(number=number):
                try:
                    await self._running_controls().stop_process(number)
                except KeyError:
                    raise CommandRejected(f"No background process {number}.") from None
            case SetGoal(command=check, max_attempts=attempts):
                if attempts < 0:
                    raise CommandRejected("max_attempts must be 0 (the default) or more.")
                self._running_controls().set_goal(check, attempts)
            case _:
                assert_never(command)

    def post(self, command: Command) -> None:
        """`send` from code that cannot wait (a signal handler, a click's callback); a refusal
        becomes an error event in the task's stream."""

        async def sending() -> None:
            try:
                await self.send(command)
            except CommandRejected as exc:
                self.say(ErrorEvent(str(exc)))

        job = asyncio.get_running_loop().create_task(sending(), name=f"command:{command.kind}")
        self._posted.add(job)
        job.add_done_callback(self._posted.discard)

    async def _answer(self, question_id: str, answer: Answer, by: str = "") -> None:
        self._settle(question_id, answer, by)

    def _settle(self, question_id: str, answer: Answer, by: str = "") -> None:
        entry = self._pending.get(question_id)
        if entry is None or entry[1].done():
            raise AnswerRejected(f"No open question {question_id!r} in task {self.id}.")
        asked, future = entry
        check_answer(asked.question, answer)
        future.set_result(answer)
        self.say(QuestionAnswered(question_id, answer, by))

    def _waiting_for_a_message(self) -> QuestionAsked | None:
        for asked, future in reversed(self._pending.values()):
            if not future.done():
                return asked
        return None

    @property
    def queued(self) -> tuple[QueuedMessage, ...]:
        """The messages sent while the task worked, not yet delivered (after the task ended:
        those it never got to, which a front end may send again to continue it)."""
        if self._controls is None:
            return ()
        return self._controls.steering.pending

    def _queue(self, text: str, images: tuple[str, ...], *, interrupt: bool) -> None:
        steering = self._running_controls().steering
        if not text.strip() and not images:
            raise CommandRejected("Type a message to send.")
        check_answer(FollowupQuestion(""), Answer(text=text, images=images))  # the images
        steering.add(text, images, interrupt=interrupt)
        self.say(steering.event())

    def _change_queue(self, changed: bool) -> None:
        if not changed:
            raise CommandRejected("No such queued message: it may have been sent already.")
        self.say(self._live_controls().steering.event())

    def _queued_for(self, question: Question) -> tuple[QueuedMessage, ...] | None:
        """The queued messages, taken as the answer to `question` when it is one a message
        answers (a follow-up, the result, a plan, a run of mistakes) and messages wait."""
        if self._controls is None or not isinstance(question, _ANSWERED_BY_A_MESSAGE):
            return None
        steering = self._controls.steering
        return steering.take() if steering.pending else None

    def _cancel(self) -> None:
        if self._runner is None or self._runner.done():
            return
        waiting = [asked for asked, future in self._pending.values() if not future.done()]
        if waiting and isinstance(waiting[-1].question, CompletionQuestion):
            # Waiting at its completion, the task has done its work: nothing runs to be
            # stopped, and stopping it now is taking the result as it is.
            self._settle(waiting[-1].question_id, Answer(ACCEPT.id))
            return
        self._runner.cancel()

    def _set_model(self, spec: str, which: Literal["act", "plan", "both"]) -> None:
        controls = self._running_controls()
        if not spec.strip():
            raise CommandRejected("Choose a model.")
        if self._switch is None:
            raise CommandRejected("This task cannot switch models.")
        modes: tuple[Mode, ...] = ("act", "plan") if which == "both" else (which,)
        chosen = []
        for mode in modes:  # every mode's new model is built before any changes
            base = self._configs.get(mode) or self._configs.get("act")
            if base is None:
                raise CommandRejected("This task cannot switch models.")
            try:
                chosen.append((mode, *self._switch(base, spec.strip())))
            except PyclineError as exc:  # an unknown provider, a missing key
                raise CommandRejected(str(exc)) from exc
        for mode, config, provider in chosen:
            self._configs[mode] = config
            controls.set_provider(provider, mode)

    def _live_controls(self) -> TaskControls:
        assert self._controls is not None, "the handle's task is attached before it runs"
        return self._controls

    def _running_controls(self) -> TaskControls:
        if self.done:
            raise CommandRejected(f"Task {self.id} has ended; resume it first.")
        return self._live_controls()

    @property
    def done(self) -> bool:
        return self._runner is not None and self._runner.done()

    @property
    def started(self) -> bool:
        return self._runner is not None

    async def wait(self) -> TaskOutcome:
        """The outcome once the task ends (cancelled: not completed, reason says so)."""
        assert self._runner is not None
        return await asyncio.shield(self._runner)

    def when_done(self, callback: Callable[[], None]) -> None:
        """Call `callback` as soon as the task ends: before any `wait()` begun after this
        call returns."""
        assert self._runner is not None
        self._runner.add_done_callback(lambda _: callback())

    # --- lifecycle (the session's side) ----------------------------------------------------------

    def attach(
        self,
        task: Task,
        *,
        configs: dict[Mode, ModelConfig] | None = None,
        switch: ModelSwitch | None = None,
    ) -> None:
        """`configs`: the model of each mode, which `SetModel` starts from; `switch` resolves
        the new one (without it, a task keeps its models)."""
        self._controls = TaskControls(task)
        self.id = task.id
        self._configs = dict(configs or {})
        self._switch = switch

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


def controls_of(handle: TaskHandle) -> TaskControls:
    """The task behind `handle`, for the app layer only (the runner that starts what comes
    next); front ends send commands."""
    return handle._live_controls()


def _reply(question: Question, text: str, images: tuple[str, ...]) -> Answer:
    """A typed message as the answer to `question`: guidance to go on after a run of mistakes,
    otherwise a reply without an option (feedback that refuses a proposed action)."""
    if isinstance(question, MistakeLimitQuestion):
        return Answer(CONTINUE.id, text, images)
    return Answer(text=text, images=images)


def check_answer(question: Question, answer: Answer) -> None:
    """`AnswerRejected` unless `answer` fits `question`: an option it offers, images as data
    URLs, an edited file only for a proposed file, and something chosen or said."""
    offered = {o.id for o in question.options}
    if answer.option and answer.option not in offered:
        choices = ", ".join(sorted(offered)) or "none (reply with text)"
        raise AnswerRejected(f"{answer.option!r} is not an option here; choose: {choices}.")
    if len(answer.images) > MAX_IMAGES:
        raise AnswerRejected(f"At most {MAX_IMAGES} images go with one answer.")
    if not all(i.startswith("data:image/") for i in answer.images):
        raise AnswerRejected("Images must be data:image/... URLs.")
    if answer.edited_content is not None and not (
        isinstance(question, ApprovalQuestion) and question.content is not None
    ):
        raise AnswerRejected("Only a proposed file can be edited.")
    said = answer.option or answer.text.strip() or answer.images
    if not said and not isinstance(question, FollowupQuestion):
        raise AnswerRejected("An answer needs an option or some text.")
