"""One ACP session: a saved pycline task that lives across prompts.

The task runs behind a `TaskHandle` (the app layer's Host) which this session follows: events
become session updates, questions become permission requests or end the turn. A prompt starts the
task, answers the question it waits on (a follow-up question, the result, a plan), or reopens it
from disk (after a cancel, a restart or `session/load`). The turn ends when the task waits for the
user again or stops; every update is written before the prompt's response.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import itertools
import logging
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, TypeAlias, assert_never

import acp
from acp.schema import AllowedOutcome, Cost, PermissionOption, PromptResponse, UsageUpdate
from acp.schema import Usage as AcpUsage

from pycline.acp.client_tools import Client, ClientCommandTool, ClientReadFileTool, mirror_write
from pycline.acp.inputs import UserInput
from pycline.acp.options import (
    ModelChoices,
    OptionValues,
    config_options,
    model_label,
    preset_policy,
)
from pycline.acp.ordered import OrderedClient, OutboxSink
from pycline.acp.outbox import Outbox
from pycline.acp.permissions import Choice, Remembered, choices
from pycline.acp.replay import budget_text
from pycline.acp.tool_calls import ActiveCall, CallReporter, ReportedTool
from pycline.app.builders import wiring
from pycline.app.live.handle import CommandRejected, TaskHandle
from pycline.app.services.tool_catalogue import facts_of
from pycline.app.sessions.runner import run_chain
from pycline.app.sessions.session import Session, TaskOptions, TaskSettings
from pycline.app.settings.auto_mode import check as check_auto_mode
from pycline.commands import (
    AnswerQuestion,
    AutoApprove,
    Cancel,
    SetApprovalPolicy,
    SetMode,
    SetModel,
    UserMessage,
)
from pycline.errors import PyclineError
from pycline.events import (
    ACCEPT,
    ALWAYS_ALLOW,
    APPROVE,
    DENY,
    RAISE_CAP,
    STOP,
    Answer,
    ApprovalQuestion,
    BudgetQuestion,
    BudgetStatus,
    CheckpointCreated,
    CompletionQuestion,
    CompletionResult,
    Envelope,
    ErrorEvent,
    ErrorRetryQuestion,
    Event,
    FollowupQuestion,
    MessagesQueued,
    MistakeLimitQuestion,
    ModeChanged,
    Notice,
    PlanQuestion,
    PlanResponse,
    Question,
    QuestionAnswered,
    QuestionAsked,
    ReasoningDelta,
    RequestStarted,
    SubagentProgress,
    TaskEnded,
    TaskProgress,
    TaskStarted,
    TextDelta,
    TextDone,
    ToolFinished,
    ToolOutput,
    ToolPartial,
    ToolStarted,
    Usage,
)
from pycline.tools.base import Tool, ToolCall

log = logging.getLogger("pycline.acp")

StopReason: TypeAlias = Literal[
    "end_turn", "max_tokens", "max_turn_requests", "refusal", "cancelled"
]
CLOSE_WAIT = 10.0  # seconds a closing session waits for its task to save


@dataclass(frozen=True, slots=True)
class ClientOffers:
    read: bool = False
    write: bool = False
    terminal: bool = False


class Busy(Exception):
    """A prompt arrived while the session's previous prompt is still running."""


class AcpSession:
    def __init__(
        self,
        *,
        session_id: str,
        workspace: Path,
        session: Session,
        settings: TaskSettings,
        conn: Any,
        offers: ClientOffers,
        models: ModelChoices,
    ) -> None:
        self.id = session_id
        self.task_id: str | None = session_id or None  # the task a prompt continues (None: new)
        self.workspace = workspace
        self.session = session  # the app layer's: model choice, MCP hub, the tasks it runs
        self.settings = settings
        self.conn = conn
        self.offers = offers
        self.models = models
        self.from_settings: AutoApprove = settings.auto_approve
        self.preset = "settings"
        self.goal = ""  # `/verify CMD`: the check the session's tasks must pass to complete
        self.outbox = Outbox(OutboxSink(conn), session_id)
        self.reporter = CallReporter(self.outbox.send, workspace)
        self._checks: dict[str, ActiveCall] = {}  # a goal's checks running, by call id
        self.remembered = Remembered()
        self.handle: TaskHandle | None = None  # the task, while it runs or waits for the user
        self.fresh = False  # `handle` was created for this session and has not started yet
        self._runner: asyncio.Task[None] | None = None
        self._waiting: tuple[Question, str] | None = None  # the question the turn ended on
        self._asking: set[asyncio.Task[None]] = set()  # permission requests in flight
        self._stop_listening: Callable[[], None] | None = None
        self._turn_over = asyncio.Event()
        self._busy = False
        self._cancelled = False
        self._stop: StopReason = "end_turn"
        self._quiet = False
        self._turn_usage = [0, 0, 0, 0]  # input, output, cache read, cache write
        self._budget_ids = itertools.count(1)
        self._last_error = ""
        self.saved_log: list[Envelope] = []  # what a reopened session showed, for `session/load`

    # --- lifecycle ------------------------------------------------------------------------

    def create_task(self) -> None:
        """A new, empty task whose id is the session id (set before the first prompt)."""
        handle = self.session.prepare_task(options=self._options())
        self._follow(handle)
        self.id = self.task_id = handle.id
        self.outbox.session_id = self.id
        self.fresh = True

    def _options(self) -> TaskOptions:
        return TaskOptions(settings=self.settings, wrap_tool=self.wrap, verify=self.goal)

    def _follow(self, handle: TaskHandle) -> None:
        if self._stop_listening is not None:
            self._stop_listening()
        self._stop_listening = handle.listen(self._on_event)
        self.handle = handle

    async def close(self) -> None:
        """Stop the task (saved; a finished one is accepted), disconnect MCP, flush updates."""
        handle = self.handle
        waiting = self._waiting
        if (
            handle is not None
            and waiting is not None
            and isinstance(waiting[0], CompletionQuestion)
        ):
            self._waiting = None
            with contextlib.suppress(CommandRejected):
                await handle.send(AnswerQuestion(waiting[1], Answer(ACCEPT.id)))
            await self._settle()
        await self._retire(quiet=True)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.outbox.drain(), CLOSE_WAIT)
        await self.outbox.close()
        await self.session.close()  # a task never prompted leaves nothing behind

    def wrap(self, tool: Tool) -> Tool:
        """Each tool the builder offers, reported to the editor; reads, edits and commands
        through the editor when it offers its file system and terminals."""
        name = tool.spec.name
        client = Client(OrderedClient(self.conn, self.outbox), self)
        if name == "read_file" and self.offers.read:
            return ReportedTool(tool, self.reporter, runner=ClientReadFileTool(client))
        if name == "execute_command" and self.offers.terminal:
            runner = ClientCommandTool(client, self.reporter)
            return ReportedTool(tool, self.reporter, runner=runner)
        if name in ("write_to_file", "replace_in_file") and self.offers.write:
            return ReportedTool(tool, self.reporter, after=mirror_write(client))
        return ReportedTool(tool, self.reporter)

    # --- prompts --------------------------------------------------------------------------

    @property
    def busy(self) -> bool:
        return self._busy

    async def prompt(self, given: UserInput) -> PromptResponse:
        if self._busy:
            raise Busy
        self._busy = True
        try:
            self._turn_over = asyncio.Event()
            self._cancelled = False
            self._stop = "end_turn"
            self._turn_usage = [0, 0, 0, 0]
            waiting, self._waiting = self._waiting, None
            if waiting is not None and self.handle is not None:
                images = tuple(image.data_url for image in given.images)
                try:
                    await self.handle.send(UserMessage(given.text, images))
                except CommandRejected as exc:
                    self._waiting = waiting  # still waiting: the user may say more
                    self._show(ErrorEvent(str(exc)))
                    await self.outbox.drain()
                    return PromptResponse(stop_reason="end_turn")
            else:
                self._runner = asyncio.create_task(self._run(given), name=f"acp:{self.id}")
            await self._turn_over.wait()
            await self.outbox.drain()
            stop: StopReason = "cancelled" if self._cancelled else self._stop
            return PromptResponse(stop_reason=stop, usage=self._usage())
        finally:
            self._busy = False

    def cancel(self) -> None:
        """`session/cancel`: stop the running step now; the task is saved."""
        if self._busy and self.handle is not None and not self.handle.done:
            self._cancelled = True
            for asking in self._asking:
                asking.cancel()
            self.handle.post(Cancel())

    async def _run(self, given: UserInput) -> None:
        """Start (or reopen) the task and follow it until it ends."""
        try:
            handle = self.handle
            if handle is not None and self.fresh:
                self.fresh = False
                self.outbox.send(
                    acp.schema.SessionInfoUpdate(
                        session_update="session_info_update",
                        title=" ".join(given.text.split())[:120] or None,
                        updated_at=_now_iso(),
                    )
                )
                self.session.start_task(handle, given.text, images=given.images)
            elif self.task_id is None:
                handle = await self.session.new_task(
                    given.text, images=given.images, options=self._options()
                )
                self.task_id = handle.id
                self._follow(handle)
            else:
                handle = await self.session.resume_task(
                    self.task_id, options=self._options(), message=given.text, images=given.images
                )
                self._follow(handle)
            finished = await run_chain(self.session, handle, continued=self._continued)
            if finished.discarded:
                self.task_id = None  # nothing was kept: the next prompt starts a new task
            if finished.handle.status == "cancelled" and not self._quiet:
                self._cancelled = True
        except PyclineError as exc:
            self._show(ErrorEvent(str(exc)))
        except Exception:  # a bug: logged in full, the editor told, the agent keeps serving
            log.exception("the task stopped on an unexpected error")
            self._show(ErrorEvent("pycline stopped on an internal error (details in its log)."))
        finally:
            self.handle = None
            self._waiting = None
            self._turn_over.set()

    def _continued(self, previous: TaskHandle, following: TaskHandle) -> None:
        """A hand-off (`new_task`): the session goes on with the new task."""
        self.task_id = following.id
        self._follow(following)
        self.outbox.send(
            acp.schema.SessionInfoUpdate(
                session_update="session_info_update",
                title=" ".join(following.title.split())[:120] or None,
                updated_at=_now_iso(),
            )
        )

    async def _settle(self) -> None:
        runner = self._runner
        if runner is not None:
            with contextlib.suppress(asyncio.CancelledError, TimeoutError):
                await asyncio.wait_for(asyncio.shield(runner), CLOSE_WAIT)

    async def _retire(self, *, quiet: bool) -> None:
        """Stop the live task (it saves itself); the next prompt reopens it from disk."""
        handle = self.handle
        if handle is None or handle.done:
            return
        self._quiet = quiet
        self._waiting = None
        for asking in self._asking:
            asking.cancel()
        await handle.send(Cancel())
        await self._settle()
        self._quiet = False

    def _usage(self) -> AcpUsage | None:
        i, o, r, w = self._turn_usage
        if not (i or o or r or w):
            return None
        return AcpUsage(
            total_tokens=i + o + r + w,
            input_tokens=i,
            output_tokens=o,
            cached_read_tokens=r,
            cached_write_tokens=w,
        )

    # --- settings the client changes ------------------------------------------------------

    def option_values(self) -> OptionValues:
        act = model_label(self.session.config)
        plan = self.session.plan_config
        return OptionValues(
            mode=self.settings.mode,
            act_model=act,
            plan_model=model_label(plan) if plan is not None else act,
            preset=self.preset,
        )

    def config_options(self) -> list[Any]:
        return config_options(self.option_values(), self.models)

    async def set_mode(self, mode: Literal["act", "plan"]) -> None:
        if self.handle is not None and not self.handle.done:
            await self.handle.send(SetMode(mode))  # announces ModeChanged when it changes
        if self.settings.mode != mode:
            self.settings = dataclasses.replace(self.settings, mode=mode)
            self.outbox.send(acp.helpers.update_current_mode(mode))
            self._send_options()

    async def set_model(self, which: Literal["model", "plan_model"], value: str) -> None:
        config = self.models.pick(value, self.session.config)
        mode: Literal["act", "plan"] = "act" if which == "model" else "plan"
        if self.handle is not None and not self.handle.done:
            await self.handle.send(SetModel(value, mode))  # fails before anything changes
        else:
            wiring.build_provider(config)  # fails here, before anything changes
        self.session.use_model(config, mode=mode)

    async def set_preset(self, name: str) -> None:
        policy = preset_policy(name, self.from_settings)
        if policy.auto_sandboxed:  # auto mode only with the sandbox, never without
            check_auto_mode(self.session.home, self.workspace)
        if self.handle is not None and not self.handle.done:
            await self.handle.send(SetApprovalPolicy(policy))
        self.preset = name
        self.settings = dataclasses.replace(self.settings, auto_approve=policy)

    def _send_options(self) -> None:
        self.outbox.send(
            acp.schema.ConfigOptionUpdate(
                session_update="config_option_update", config_options=self.config_options()
            )
        )

    # --- following the task ----------------------------------------------------------------

    def _on_event(self, envelope: Envelope) -> None:
        event = envelope.event
        if isinstance(event, QuestionAsked):
            self._on_question(event)
        else:
            self._show(event)

    def _show(self, event: Event) -> None:
        send = self.outbox.send
        match event:
            case TextDelta(text=text):
                send(acp.update_agent_message_text(text))
            case ReasoningDelta(text=text):
                send(acp.update_agent_thought_text(text))
            case CompletionResult(result=result, command=command):
                extra = f"\n\nTo see it: `{command}`" if command else ""
                send(acp.update_agent_message_text(f"\n\n{result}{extra}\n"))
            case PlanResponse(response=response):
                send(acp.update_agent_message_text(f"\n\n{response}\n"))
            case ErrorEvent(text=text):
                self._last_error = text
                send(acp.update_agent_message_text(f"\n\nError: {text}\n"))
            case TaskEnded(completed=completed, reason=reason):
                # Why the task stopped (a spending cap, a run of mistakes), unless the editor
                # stopped it or the reason was just shown as an error.
                quiet = self._quiet or self._cancelled or reason == self._last_error
                if not (completed or quiet):
                    send(acp.update_agent_message_text(f"\n\nStopped: {reason}\n"))
            case Notice(text=text):
                if not self._quiet:
                    send(acp.update_agent_thought_text(f"\n{text}\n"))
            case ModeChanged(mode=mode):
                if mode in ("act", "plan"):
                    self.settings = dataclasses.replace(self.settings, mode=mode)
                send(acp.helpers.update_current_mode(mode))
                self._send_options()
            case Usage() as usage:
                self._turn_usage[0] += usage.input_tokens
                self._turn_usage[1] += usage.output_tokens
                self._turn_usage[2] += usage.cache_read_tokens
                self._turn_usage[3] += usage.cache_write_tokens
                send(
                    UsageUpdate(
                        session_update="usage_update",
                        used=usage.context_tokens,
                        size=usage.context_window,
                        cost=Cost(amount=usage.task_cost, currency="USD"),
                    )
                )
            case TaskProgress(checklist=checklist):
                self.reporter.plan(checklist)
            case SubagentProgress(index=i, total=n, status=status, latest_tool=latest):
                if not self._quiet:
                    tool = f" · {latest}" if latest else ""
                    send(acp.update_agent_thought_text(f"\nsub-agent {i}/{n} {status}{tool}\n"))
            case ToolStarted(tool="verify_goal", summary=summary, tool_call_id=call_id):
                # A goal's check is no tool the model called: shown from its events.
                command = summary.removeprefix("verify_goal").strip()
                check = ToolCall("verify_goal", {"command": command})
                self._checks[call_id] = self.reporter.begin(check, facts_of("verify_goal"))
                self.reporter.running(self._checks[call_id])
            case ToolOutput(text=text, tool_call_id=call_id) if call_id in self._checks:
                self.reporter.output(self._checks[call_id], text)
            case ToolFinished(ok=ok, result=result, tool_call_id=call_id) if (
                call_id in self._checks
            ):
                self.reporter.finish(self._checks.pop(call_id), ok=ok, text=result)
            case BudgetStatus() as budget:
                if not self._quiet:
                    send(acp.update_agent_thought_text(f"\n{budget_text(budget)}\n"))
            case MessagesQueued():
                pass  # an editor sends one prompt at a time: nothing is queued from it
            case (
                TaskStarted()
                | RequestStarted()
                | TextDone()
                | ToolPartial()
                | ToolStarted()
                | ToolOutput()
                | ToolFinished()
                | CheckpointCreated()
                | QuestionAsked()
                | QuestionAnswered()
            ):
                pass  # tool calls are reported by the wrapped tools; the rest is bookkeeping
            case _:
                assert_never(event)

    def _on_question(self, asked: QuestionAsked) -> None:
        question = asked.question
        match question:
            case ApprovalQuestion():
                self._answer_later(asked.question_id, self._permission(question))
            case ErrorRetryQuestion():
                # The error is shown; the next prompt resumes the task.
                self._answer_later(asked.question_id, _now(Answer(STOP.id)))
            case FollowupQuestion(question=text, options=options):
                listed = "".join(f"\n- {o.label}" for o in options)
                self.outbox.send(acp.update_agent_message_text(f"\n\n{text}{listed}\n"))
                self._end_turn(question, asked.question_id)
            case MistakeLimitQuestion(count=count):
                self._stop = "max_turn_requests"
                self.outbox.send(
                    acp.update_agent_message_text(
                        f"\n\nThe model made {count} mistakes in a row. Reply with guidance to "
                        "continue.\n"
                    )
                )
                self._end_turn(question, asked.question_id)
            case BudgetQuestion():
                self._answer_later(asked.question_id, self._budget(question))
            case CompletionQuestion() | PlanQuestion():
                self._end_turn(question, asked.question_id)
            case _:
                assert_never(question)

    def _end_turn(self, question: Question, question_id: str) -> None:
        self._waiting = (question, question_id)
        self._turn_over.set()

    def _answer_later(self, question_id: str, deciding: Coroutine[Any, Any, Answer]) -> None:
        handle = self.handle

        async def answer() -> None:
            decided = await deciding
            if handle is not None:
                with contextlib.suppress(CommandRejected):  # the task was cancelled meanwhile
                    await handle.send(AnswerQuestion(question_id, decided, by="the editor"))

        asking = asyncio.create_task(answer(), name=f"acp:answer:{question_id}")
        self._asking.add(asking)
        asking.add_done_callback(self._asking.discard)

    async def _budget(self, question: BudgetQuestion) -> Answer:
        """A spending cap reached: the editor is asked to raise it (by as much again) or stop,
        as a permission request on a call of its own that ends with the answer."""
        call_id = f"budget_{next(self._budget_ids)}"
        title = f"Spending cap reached: {budget_text(question)}"
        self.outbox.send(acp.start_tool_call(call_id, title, kind="other", status="pending"))
        await self.outbox.drain()  # the client must know the call before it is asked about it
        raised = question.spent + question.cap
        more = f"${raised:.2f}" if question.unit == "usd" else f"{raised:,.0f} tokens"
        response = await self.conn.request_permission(
            session_id=self.id,
            tool_call=acp.schema.ToolCallUpdate(
                tool_call_id=call_id, title=title, kind="other", status="pending"
            ),
            options=[
                PermissionOption(
                    option_id=RAISE_CAP.id, name=f"Raise the cap to {more}", kind="allow_once"
                ),
                PermissionOption(option_id=STOP.id, name="Stop here", kind="reject_once"),
            ],
        )
        outcome = response.outcome
        raise_it = isinstance(outcome, AllowedOutcome) and outcome.option_id == RAISE_CAP.id
        status: Literal["completed", "failed"] = "completed" if raise_it else "failed"
        self.outbox.send(acp.update_tool_call(call_id, status=status))
        return Answer(RAISE_CAP.id) if raise_it else Answer(STOP.id)

    async def _permission(self, question: ApprovalQuestion) -> Answer:
        active = self.reporter.current
        if active is None:  # an approval outside a reported call: report it now
            active = self.reporter.begin(ToolCall(question.tool, {}), facts_of(question.tool))
        kind, command = active.kind, active.command
        # A tool with its own, narrower "always" (an MCP tool: that tool on that server) offers
        # that one, remembered where the terminal remembers it; never the whole kind.
        own_always = next((o for o in question.options if o.id == ALWAYS_ALLOW.id), None)
        scoped = own_always is not None and question.tool == "use_mcp_tool"
        if not question.outside_workspace and not scoped:
            match self.remembered.verdict(kind, command):
                case "allow":
                    return Answer(APPROVE.id)
                case "reject":
                    return Answer(
                        DENY.id, "The user rejected this kind of action for this session."
                    )
                case None:
                    pass
        if scoped and own_always is not None:
            offered = [
                Choice("allow_once", "Allow", "allow_once"),
                Choice("allow_always", own_always.label, "allow_always"),
                Choice("reject_once", "Reject", "reject_once"),
            ]
        else:
            offered = choices(kind, command)
        await self.outbox.drain()  # the client must know the call before it is asked about it
        response = await self.conn.request_permission(
            session_id=self.id,
            tool_call=_permission_call(active, question),
            options=[
                PermissionOption(option_id=c.option_id, name=c.name, kind=c.kind) for c in offered
            ],
        )
        outcome = response.outcome
        if not isinstance(outcome, AllowedOutcome):
            return Answer(DENY.id)  # the client cancelled the turn
        chosen = next((c for c in offered if c.option_id == outcome.option_id), None)
        if chosen is None:
            return Answer(DENY.id, "The user's answer was not one of the options; not done.")
        if scoped:
            return Answer(
                ALWAYS_ALLOW.id
                if chosen.kind == "allow_always"
                else APPROVE.id
                if chosen.kind == "allow_once"
                else DENY.id
            )
        if not question.outside_workspace:
            self.remembered.remember(chosen.kind, kind, command)
        return Answer(APPROVE.id if chosen.kind.startswith("allow") else DENY.id)


def _permission_call(active: ActiveCall, question: ApprovalQuestion) -> Any:
    update = active.as_update()
    if question.outside_workspace:
        update.title = f"{active.title} (outside the workspace)"
    return update


async def _now(answer: Answer) -> Answer:
    return answer


def _now_iso() -> str:
    from datetime import UTC, datetime

    return datetime.now(UTC).isoformat()
