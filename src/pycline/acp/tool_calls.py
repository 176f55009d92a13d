"""Every tool call the task makes, reported to the client as an ACP tool call.

Tools are wrapped rather than changed: the wrapper announces the call (kind, title, locations),
shows an edit's diff as soon as it is proposed, streams a command's output, and reports the
result. The approval a wrapped call asks for is tied to the call through `CallReporter.current`.
"""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import acp
from acp.schema import ToolCallLocation

from pycline.acp.mapping import (
    PlanItem,
    checklist,
    tool_kind,
    tool_locations,
    tool_title,
)
from pycline.app.services.result_text import for_people
from pycline.errors import ToolError
from pycline.events import ApprovalQuestion, Event, ToolOutput
from pycline.tools.base import (
    Approval,
    ApprovalCategory,
    Approver,
    SayFn,
    Tool,
    ToolCall,
    ToolContext,
    ToolFacts,
    ToolKind,
    ToolResult,
    ToolSpec,
)

Send = Callable[[Any], None]  # queues one session update, in order

# Shown in full up to this size; the client gets the start and the end of anything longer.
RESULT_CHARS = 20_000
OUTPUT_UPDATE_SECONDS = 0.1  # live command output: at most one update per this interval


@dataclass
class ActiveCall:
    id: str
    tool: str
    kind: ToolKind
    params: Mapping[str, str]
    title: str
    diff: Any = None  # the proposed edit, shown until the call ends
    terminal_id: str | None = None
    output: list[str] = field(default_factory=list)
    last_output_update: float = 0.0

    @property
    def command(self) -> str | None:
        return self.params.get("command") if self.kind == "execute" else None

    def as_update(self) -> acp.schema.ToolCallUpdate:
        return acp.schema.ToolCallUpdate(
            tool_call_id=self.id, title=self.title, kind=self.kind, status="pending"
        )


class CallReporter:
    """Announces calls and their progress; knows the call now waiting for approval."""

    def __init__(self, send: Send, root: Path) -> None:
        self.send = send
        self.root = root
        self.current: ActiveCall | None = None
        self._ids = itertools.count(1)
        self._last_plan: list[PlanItem] = []

    def begin(self, call: ToolCall, facts: ToolFacts) -> ActiveCall:
        params = dict(call.params)
        params.pop("task_progress", None)
        active = ActiveCall(
            id=f"call_{next(self._ids)}",
            tool=call.name,
            kind=tool_kind(call.name, facts),
            params=params,
            title=tool_title(call.name, params, facts),
        )
        self.current = active
        self.send(
            acp.start_tool_call(
                active.id,
                active.title,
                kind=active.kind,
                status="pending",
                locations=[
                    ToolCallLocation(path=loc.path, line=loc.line)
                    for loc in tool_locations(call.name, params, self.root, facts)
                ],
                raw_input=params,
            )
        )
        return active

    def plan(self, markdown: str) -> None:
        items = checklist(markdown)
        # The same checklist arrives with the tool call and again as the task's progress event.
        if items and items != self._last_plan:
            self._last_plan = items
            self.send(
                acp.update_plan(
                    acp.plan_entry(i.content, priority="medium", status=i.status) for i in items
                )
            )

    def diff(self, active: ActiveCall, path: Path, old: str | None, new: str) -> None:
        active.diff = acp.tool_diff_content(str(path), new, old)
        self.send(acp.update_tool_call(active.id, content=[active.diff]))

    def running(self, active: ActiveCall) -> None:
        self.send(acp.update_tool_call(active.id, status="in_progress"))

    def terminal(self, active: ActiveCall, terminal_id: str) -> None:
        active.terminal_id = terminal_id
        self.send(
            acp.update_tool_call(
                active.id, status="in_progress", content=[acp.tool_terminal_ref(terminal_id)]
            )
        )

    def output(self, active: ActiveCall, text: str) -> None:
        active.output.append(text)
        now = asyncio.get_running_loop().time()
        if now - active.last_output_update >= OUTPUT_UPDATE_SECONDS:
            active.last_output_update = now
            self.send(acp.update_tool_call(active.id, content=[_output_block(active)]))

    def finish(self, active: ActiveCall, *, ok: bool, text: str) -> None:
        text = for_people(text)  # the editor shows it: no file content quoted for the model
        if self.current is active:
            self.current = None
        content: list[Any] | None
        if active.terminal_id is not None:
            content = None  # the terminal stays the content
        elif active.kind == "execute":
            content = [_output_block(active)] if active.output else [_text(text)]
        elif active.diff is not None:
            content = None if ok else [active.diff, _text(text)]  # the diff stays
        else:
            content = [_text(text)]
        self.send(
            acp.update_tool_call(
                active.id,
                status="completed" if ok else "failed",
                content=content,
                raw_output={"result": _clip(text)},
            )
        )


def _text(text: str) -> Any:
    return acp.tool_content(acp.text_block(_clip(text)))


def _output_block(active: ActiveCall) -> Any:
    return acp.tool_content(acp.text_block(f"```\n{_clip(''.join(active.output))}\n```"))


def _clip(text: str) -> str:
    if len(text) <= RESULT_CHARS:
        return text
    half = RESULT_CHARS // 2
    return f"{text[:half]}\n[… {len(text) - RESULT_CHARS} characters left out …]\n{text[-half:]}"


class ReportedTool:
    """A tool whose calls the client sees; `runner` replaces how the tool does its work."""

    def __init__(
        self,
        inner: Tool,
        reporter: CallReporter,
        *,
        runner: Tool | None = None,
        after: Callable[[ActiveCall, ToolContext, ToolResult], Any] | None = None,
    ) -> None:
        self.inner = inner
        self.reporter = reporter
        self.runner = runner or inner
        self.after = after  # awaited after a successful run (mirrors an edit into the editor)

    @property
    def spec(self) -> ToolSpec:
        return self.inner.spec

    def summary(self, call: ToolCall) -> str:
        return self.inner.summary(call)

    async def run(self, call: ToolCall, ctx: ToolContext) -> ToolResult:
        progress = call.get("task_progress")
        if progress is not None:
            self.reporter.plan(progress)
        facts = self.inner.spec.facts
        if facts.conversational:
            return await self.runner.run(call, ctx)
        active = self.reporter.begin(call, facts)
        scoped = dataclasses.replace(
            ctx,
            approve=_ApproveAndShow(ctx.approve, self.reporter, active, ctx),
            say_fn=_SayOutput(ctx.say_fn, self.reporter, active),
        )
        try:
            result = await self.runner.run(call, scoped)
            if self.after is not None and not (result.is_error or result.denied):
                await self.after(active, scoped, result)
        except ToolError as exc:
            self.reporter.finish(active, ok=False, text=str(exc))
            raise
        except asyncio.CancelledError:
            self.reporter.finish(active, ok=False, text="Cancelled.")
            raise
        self.reporter.finish(active, ok=not (result.is_error or result.denied), text=result.text)
        return result


@dataclass
class _ApproveAndShow:
    inner: Approver
    reporter: CallReporter
    active: ActiveCall
    ctx: ToolContext

    async def __call__(
        self, question: ApprovalQuestion, category: ApprovalCategory, *, outside_workspace: bool
    ) -> Approval:
        if question.content is not None and question.path:
            try:
                target = self.ctx.resolve(question.path)
            except ToolError:
                target = None
            if target is not None:
                old = await asyncio.to_thread(_read_or_none, target.path)
                self.reporter.diff(self.active, target.path, old, question.content)
        self.reporter.current = self.active
        approval = await self.inner(question, category, outside_workspace=outside_workspace)
        if approval.approved:
            self.reporter.running(self.active)
        return approval


def _read_or_none(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:  # a new file (or unreadable: the diff then shows it as new)
        return None


@dataclass
class _SayOutput:
    inner: SayFn
    reporter: CallReporter
    active: ActiveCall

    def __call__(self, event: Event, /) -> None:
        if isinstance(event, ToolOutput):
            self.reporter.output(self.active, event.text)
        self.inner(event)
