"""One ACP session: a saved pycline task that lives across prompts.

A prompt starts the task, answers the question it is waiting on (a follow-up question, the
completion, a plan), or resumes it from disk (after a cancel, a restart or `session/load`). The
turn ends when the task waits for the user again or stops; every update is written before the
prompt's response.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, TypeAlias

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
from pycline.acp.outbox import Outbox, UpdateSink
from pycline.acp.permissions import Remembered, choices
from pycline.acp.tool_calls import ActiveCall, CallReporter, ReportedTool
from pycline.app import wiring
from pycline.app.controller import Controller
from pycline.app.task_settings import chromium_setting
from pycline.core.approval import AutoApprove
from pycline.core.task import Task, TaskOutcome, TaskSettings
from pycline.errors import PyclineError
from pycline.events import (
    ACCEPT,
    APPROVE,
    CONTINUE,
    DENY,
    STOP,
    Answer,
    ApprovalQuestion,
    CompletionQuestion,
    CompletionResult,
    ErrorEvent,
    ErrorRetryQuestion,
    Event,
    FollowupQuestion,
    MistakeLimitQuestion,
    ModeChanged,
    Notice,
    PlanQuestion,
    PlanResponse,
    Question,
    ReasoningDelta,
    TextDelta,
    Usage,
)
from pycline.messages import Content, TextContent, UiMessage
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
        controller: Controller,
        settings: TaskSettings,
        conn: Any,
        offers: ClientOffers,
        models: ModelChoices,
    ) -> None:
        self.id = session_id
        self.workspace = workspace
        self.controller = controller
        self.settings = settings
        self.conn = conn
        self.offers = offers
        self.models = models
        self.from_settings: AutoApprove = settings.auto_approve
        self.preset = "settings"
        self.outbox = Outbox(_Sink(conn), session_id)
        self.reporter = CallReporter(self.outbox.send, workspace)
        self.remembered = Remembered()
        self.task: Task | None = None  # alive while it runs or waits for the user
        self.fresh = False  # `task` was created for this session and has not started yet
        self._runner: asyncio.Task[TaskOutcome | None] | None = None
        self._waiting: tuple[Question, asyncio.Future[Answer]] | None = None
        self._turn_over = asyncio.Event()
        self._busy = False
        self._cancelled = False
        self._stop: StopReason = "end_turn"
        self._quiet = False
        self._turn_usage = [0, 0, 0, 0]  # input, output, cache read, cache write
        self.saved_log: list[UiMessage] = []  # a reopened session's log, for `session/load`

    # --- lifecycle ------------------------------------------------------------------------

    def create_task(self) -> None:
        """A new, empty task whose id is the session id (set before the first prompt)."""
        self.task = self.controller.new_task(
            "", self, self.workspace, self.settings, tools=self.tools()
        )
        self.id = self.task.id
        self.outbox.session_id = self.id
        self.fresh = True

    async def close(self) -> None:
        """Stop the task (saved; a finished one is accepted), disconnect MCP, flush updates."""
        runner = self._runner
        if self._waiting is not None and isinstance(self._waiting[0], CompletionQuestion):
            self._answer(Answer(ACCEPT.id))
            if runner is not None:
                with contextlib.suppress(asyncio.CancelledError, TimeoutError):
                    await asyncio.wait_for(asyncio.shield(runner), CLOSE_WAIT)
        await self._retire(quiet=True)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.outbox.drain(), CLOSE_WAIT)
        await self.outbox.close()
        await self.controller.close()
        if self.fresh and self.task is not None:
            with contextlib.suppress(PyclineError, OSError):
                self.controller.store.delete(self.task.id)  # never prompted: nothing to keep

    def tools(self) -> list[Tool]:
        chromium = chromium_setting(self.controller.home, self.workspace)
        tools = wiring.default_tools(chromium=chromium)
        if self.controller.mcp is not None:
            tools += wiring.mcp_tools()
        client = Client(_Ordered(self.conn, self.outbox), self)
        wrapped: list[Tool] = []
        for tool in tools:
            name = tool.spec.name
            if name == "read_file" and self.offers.read:
                wrapped.append(ReportedTool(tool, self.reporter, runner=ClientReadFileTool(client)))
            elif name == "execute_command" and self.offers.terminal:
                runner = ClientCommandTool(client, self.reporter)
                wrapped.append(ReportedTool(tool, self.reporter, runner=runner))
            elif name in ("write_to_file", "replace_in_file") and self.offers.write:
                wrapped.append(ReportedTool(tool, self.reporter, after=mirror_write(client)))
            else:
                wrapped.append(ReportedTool(tool, self.reporter))
        return wrapped

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
            if self._waiting is not None:
                self._answer(_reply(self._waiting[0], given.text))
            else:
                self._start(given)
            await self._turn_over.wait()
            await self.outbox.drain()
            stop: StopReason = "cancelled" if self._cancelled else self._stop
            return PromptResponse(stop_reason=stop, usage=self._usage())
        finally:
            self._busy = False

    def cancel(self) -> None:
        """`session/cancel`: stop the running step now; the task is saved."""
        if self._runner is not None and not self._runner.done() and self._busy:
            self._cancelled = True
            if self._waiting is not None:
                self._waiting[1].cancel()
                self._waiting = None
            self._runner.cancel()

    def _start(self, given: UserInput) -> None:
        self._runner = asyncio.create_task(self._run(given), name=f"acp:task:{self.id}")

    async def _run(self, given: UserInput) -> TaskOutcome | None:
        try:
            if self.task is not None and self.fresh:
                task = self.task
                self.fresh = False
                task.record.task = given.text
                self.outbox.send(
                    acp.schema.SessionInfoUpdate(
                        session_update="session_info_update",
                        title=" ".join(given.text.split())[:120] or None,
                        updated_at=_now_iso(),
                    )
                )
                return await task.start(given.text, given.images)
            message: list[Content] = [TextContent(_new_message(given.text)), *given.images]
            task, go = self.controller.resume_task(
                self.id, self, self.workspace, self.settings, tools=self.tools(), message=message
            )
            self.task = task
            return await go()
        except asyncio.CancelledError:
            self._cancelled = not self._quiet
            return None
        except PyclineError as exc:
            self.say(ErrorEvent(str(exc)))
            return None
        except Exception:  # a bug: logged in full, the editor told, the agent keeps serving
            log.exception("the task stopped on an unexpected error")
            self.say(ErrorEvent("pycline stopped on an internal error (details in its log)."))
            return None
        finally:
            self.task = None
            self._waiting = None
            self._turn_over.set()

    async def _retire(self, *, quiet: bool) -> None:
        """Stop the live task (it saves itself); the next prompt reopens it from disk."""
        runner = self._runner
        if runner is None or runner.done():
            return
        self._quiet = quiet
        if self._waiting is not None:
            self._waiting[1].cancel()
            self._waiting = None
        runner.cancel()
        with contextlib.suppress(asyncio.CancelledError, TimeoutError):
            await asyncio.wait_for(asyncio.shield(runner), CLOSE_WAIT)
        self._quiet = False

    def _answer(self, answer: Answer) -> None:
        assert self._waiting is not None
        _, future = self._waiting
        self._waiting = None
        if not future.done():
            future.set_result(answer)

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
        act = model_label(self.controller.config)
        plan = self.controller.plan_config
        return OptionValues(
            mode=self.settings.mode,
            act_model=act,
            plan_model=model_label(plan) if plan is not None else act,
            preset=self.preset,
        )

    def config_options(self) -> list[Any]:
        return config_options(self.option_values(), self.models)

    def set_mode(self, mode: Literal["act", "plan"]) -> None:
        if self.task is not None and not self.fresh:
            self.task.set_mode(mode)  # announces ModeChanged, handled in `say`
        if self.settings.mode != mode:
            self.settings = dataclasses.replace(self.settings, mode=mode)
            self.outbox.send(acp.helpers.update_current_mode(mode))
            self._send_options()
        if self.task is not None and self.fresh:
            self.task.set_mode(mode)

    def set_model(self, which: Literal["model", "plan_model"], value: str) -> None:
        config = self.models.pick(value, self.controller.config)
        mode: Literal["act", "plan"] = "act" if which == "model" else "plan"
        provider = wiring.build_provider(config)  # fails here, before anything changes
        if which == "model":
            self.controller.config = config
        else:
            self.controller.plan_config = config
        if self.task is not None:
            self.task.set_provider(provider, mode=mode)

    def set_preset(self, name: str) -> None:
        policy = preset_policy(name, self.from_settings)
        self.preset = name
        self.settings = dataclasses.replace(self.settings, auto_approve=policy)
        if self.task is not None:
            self.task.approver.settings = policy

    def _send_options(self) -> None:
        self.outbox.send(
            acp.schema.ConfigOptionUpdate(
                session_update="config_option_update", config_options=self.config_options()
            )
        )

    # --- the task's Host ------------------------------------------------------------------

    def say(self, event: Event) -> None:
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
                send(acp.update_agent_message_text(f"\n\nError: {text}\n"))
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
            case _:
                pass  # tool calls are reported by the wrapped tools; the rest is bookkeeping

    async def ask(self, question: Question) -> Answer:
        match question:
            case ApprovalQuestion():
                return await self._permission(question)
            case ErrorRetryQuestion():
                return Answer(STOP.id)  # the error is shown; the next prompt resumes the task
            case FollowupQuestion(question=text, options=options):
                listed = "".join(f"\n- {o.label}" for o in options)
                self.outbox.send(acp.update_agent_message_text(f"\n\n{text}{listed}\n"))
                return await self._wait_for_user(question)
            case MistakeLimitQuestion(count=count):
                self._stop = "max_turn_requests"
                self.outbox.send(
                    acp.update_agent_message_text(
                        f"\n\nThe model made {count} mistakes in a row. Reply with guidance to "
                        "continue.\n"
                    )
                )
                return await self._wait_for_user(question)
            case CompletionQuestion() | PlanQuestion():
                return await self._wait_for_user(question)

    async def _wait_for_user(self, question: Question) -> Answer:
        future: asyncio.Future[Answer] = asyncio.get_running_loop().create_future()
        self._waiting = (question, future)
        self._turn_over.set()
        return await future

    async def _permission(self, question: ApprovalQuestion) -> Answer:
        active = self.reporter.current
        if active is None:  # an approval outside a reported call: report it now
            active = self.reporter.begin(ToolCall(question.tool, {}))
        kind, command = active.kind, active.command
        if not question.outside_workspace:
            match self.remembered.verdict(kind, command):
                case "allow":
                    return Answer(APPROVE.id)
                case "reject":
                    return Answer(
                        DENY.id, "The user rejected this kind of action for this session."
                    )
                case None:
                    pass
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
        if not question.outside_workspace:
            self.remembered.remember(chosen.kind, kind, command)
        return Answer(APPROVE.id if chosen.kind.startswith("allow") else DENY.id)


def _permission_call(active: ActiveCall, question: ApprovalQuestion) -> Any:
    update = active.as_update()
    if question.outside_workspace:
        update.title = f"{active.title} (outside the workspace)"
    return update


def _reply(question: Question, text: str) -> Answer:
    """The next prompt as the answer to the question the task waits on."""
    if isinstance(question, MistakeLimitQuestion):
        return Answer(CONTINUE.id, text)
    return Answer(text=text)  # feedback on a result, a reply to a plan or a question


def _now_iso() -> str:
    from datetime import UTC, datetime

    return datetime.now(UTC).isoformat()


def _new_message(text: str) -> str:
    return f"The user has a new message for this task:\n<user_message>\n{text}\n</user_message>"


@dataclass
class _Sink:
    """The connection as the outbox sees it (keeps `Outbox` free of SDK types)."""

    conn: UpdateSink

    async def session_update(self, session_id: str, update: Any) -> None:
        await self.conn.session_update(session_id=session_id, update=update)


class _Ordered:
    """The client's fs and terminal methods, each sent after the updates queued before it."""

    def __init__(self, conn: Any, outbox: Outbox) -> None:
        self._conn = conn
        self._outbox = outbox

    async def _call(self, name: str, **params: Any) -> Any:
        await self._outbox.drain()
        return await getattr(self._conn, name)(**params)

    async def read_text_file(
        self, session_id: str, path: str, line: int | None = None, limit: int | None = None
    ) -> Any:
        return await self._call(
            "read_text_file", session_id=session_id, path=path, line=line, limit=limit
        )

    async def write_text_file(self, session_id: str, path: str, content: str) -> Any:
        return await self._call(
            "write_text_file", session_id=session_id, path=path, content=content
        )

    async def create_terminal(
        self,
        session_id: str,
        command: str,
        args: list[str] | None = None,
        env: Any = None,
        cwd: str | None = None,
        output_byte_limit: int | None = None,
    ) -> Any:
        return await self._call(
            "create_terminal",
            session_id=session_id,
            command=command,
            args=args,
            env=env,
            cwd=cwd,
            output_byte_limit=output_byte_limit,
        )

    async def terminal_output(self, session_id: str, terminal_id: str) -> Any:
        return await self._call("terminal_output", session_id=session_id, terminal_id=terminal_id)

    async def wait_for_terminal_exit(self, session_id: str, terminal_id: str) -> Any:
        return await self._call(
            "wait_for_terminal_exit", session_id=session_id, terminal_id=terminal_id
        )

    async def kill_terminal(self, session_id: str, terminal_id: str) -> Any:
        return await self._call("kill_terminal", session_id=session_id, terminal_id=terminal_id)

    async def release_terminal(self, session_id: str, terminal_id: str) -> Any:
        return await self._call("release_terminal", session_id=session_id, terminal_id=terminal_id)
