"""Cline's agent features around the loop: tool-call format, focus chain, loop detection, the
cost governor. The task calls these at a few hook points; each feature keeps its own state here.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, assert_never

from pycline.core import commands
from pycline.core.budget import CostGovernor
from pycline.core.focus_chain import FocusChain
from pycline.core.hooks import HookResult, Hooks, context_block, context_type
from pycline.core.loops import LoopDetector, loop_stop_reason
from pycline.core.tool_format import ToolFormat
from pycline.events import (
    CONTINUE,
    ApprovalQuestion,
    BudgetQuestion,
    CompletionQuestion,
    ErrorRetryQuestion,
    FollowupQuestion,
    MistakeLimitQuestion,
    Notice,
    PlanQuestion,
    Question,
)
from pycline.messages import Content, Message, TextContent
from pycline.parsing.native import ToolDefinition
from pycline.prompts.system import render_tool
from pycline.prompts.tool_schema import definitions
from pycline.workspace.workflows import Workflow, enabled_workflows

if TYPE_CHECKING:
    from pycline.core.subagents import SubagentSpawner
    from pycline.core.task import Task, TaskOutcome
    from pycline.tools.base import ToolSpec


@dataclass(slots=True)
class AgentFeatures:
    tool_format: ToolFormat = field(default_factory=ToolFormat)
    focus: FocusChain = field(default_factory=FocusChain)
    loops: LoopDetector = field(default_factory=LoopDetector)
    budget: CostGovernor = field(default_factory=CostGovernor)
    # The workflows `/name` may run in a workspace (the app's: the user's folder too, minus the
    # ones switched off); by default the workspace's own.
    workflows: Callable[[Path], list[Workflow]] = field(
        default=lambda root: enabled_workflows(root, None)
    )
    hooks: Hooks | None = None
    spawner: SubagentSpawner | None = None  # runs sub-agents; None: inline, without a session
    stop_reason: str | None = None  # a hook cancelled the task
    next_task: str | None = None  # the model handed over to a new task with this context
    requested_tools: set[str] = field(default_factory=set)  # command tools the user asked for
    _pending_context: str = ""  # PreToolUse's context, sent with the tool's result
    _notifications: set[asyncio.Task[HookResult]] = field(default_factory=set)
    _notification_ids: itertools.count[int] = field(default_factory=lambda: itertools.count(1))
    # The last tool specs and their definitions: the same every request until the mode changes.
    _definitions: tuple[tuple[ToolSpec, ...], tuple[ToolDefinition, ...]] = ((), ())

    def expand_commands(self, text: str, task: Task) -> str:
        """A slash command in the user's text (a built-in or a workflow) as instructions; a
        command's own tool is offered from then on (with XML calls, its docs come along)."""
        if not commands.has_command_word(text):
            return text  # e.g. a path: no need to list and open the workflow files
        workflows = self.workflows(task.workspace.root)
        expanded = commands.expand(text, workflows)
        name = commands.COMMAND_TOOLS.get(expanded.command or "")
        tool = task.tools.get(name) if name else None
        if tool is None:
            return expanded.text
        self.requested_tools.add(tool.spec.name)
        if self.tool_format.native(task.provider.model):
            return expanded.text
        return f"{expanded.text}\n\n# Tool for this request\n{render_tool(tool.spec)}"

    def recall_commands(self, history: Sequence[Message]) -> None:
        """After a restart: the command tools the user asked for earlier in the task."""
        for message in history:
            if message.role == "user":
                for part in message.content:
                    if isinstance(part, TextContent):
                        self.requested_tools |= commands.tools_asked_for(part.text)

    def offered(self, task: Task) -> tuple[ToolSpec, ...]:
        """The tools offered to the model now: a command's tool only once it was asked for."""
        return tuple(
            t.spec
            for t in task.tools.values()
            if t.spec.name not in commands.ON_REQUEST_TOOLS or t.spec.name in self.requested_tools
        )

    def native_tools(self, task: Task) -> tuple[ToolDefinition, ...]:
        """The tool definitions to send, or () when this request uses XML tool calls."""
        if not self.tool_format.native(task.provider.model):
            return ()
        specs = self.offered(task)
        if specs != self._definitions[0]:
            self._definitions = (specs, definitions(specs))
        return self._definitions[1]

    async def before_request(self, task: Task) -> tuple[list[Content], str | None]:
        """Notes for the next user message, and why the task must stop now (a spending cap the
        user would not raise), if it must."""
        while (question := self.budget.reached()) is not None:
            answer = await task.ask(question)
            if not self.budget.raise_cap(question, answer):
                return [], self.budget.stop_reason(question)
        note, edited = self.focus.reminder(mode=task.mode)
        if edited is not None:
            task.say(edited)
        return ([TextContent(note)] if note else []), None

    async def after_step(self, task: Task) -> TaskOutcome | None:
        """How the task ends after a step, if it does: handed over to a new task, cancelled by a
        hook, or stopped because the model looped and the user gave up."""
        from pycline.core.task import TaskOutcome

        if self.next_task is not None:
            return TaskOutcome(True, "handed over to a new task", next_task=self.next_task)
        if self.stop_reason is not None:
            return TaskOutcome(False, self.stop_reason)
        tool = self.loops.stopped_tool
        if tool is None:
            return None
        answer = await task.ask(MistakeLimitQuestion(self.loops.count))
        if not answer.chose(CONTINUE) and not answer.text.strip():
            return TaskOutcome(False, loop_stop_reason(tool))
        self.loops.reset()
        return None

    def charged(self, task: Task, cost: float, tokens: int) -> None:
        self.budget.charge(cost, tokens)
        for status in self.budget.status():
            task.say(status)

    # --- hooks ----------------------------------------------------------------------------------

    async def hook(
        self, task: Task, name: str, data: dict[str, Any], *, stops_task: bool = True
    ) -> HookResult:
        if self.hooks is None:
            return HookResult()
        common = {
            "taskId": task.id,
            "workspaceRoots": [str(task.workspace.root)],
            "userId": "unknown",
            "model": {"provider": task.provider.name, "slug": task.provider.model.id},
        }
        self.hooks.common = common
        await task.checkpoints.settle()  # a hook is a program that may change files
        result = await self.hooks.run(name, data)
        for error in result.errors:
            task.say(Notice(f"Hook {name}: {error}"))
        if result.cancel and stops_task:
            self.stop_reason = f"The {name} hook cancelled the task."
        return result

    async def pre_compact(self, task: Task, strategy: str, context_size: int) -> tuple[bool, str]:
        """PreCompact before history is condensed or trimmed: whether to go on (a hook may
        abort the compaction, not the task), and the hooks' context for the model."""
        r = task.record
        data = {"preCompact": {
            "taskId": task.id, "ulid": task.id, "contextSize": context_size,
            "compactionStrategy": strategy, "previousApiReqIndex": max(len(task.history) - 1, 0),
            "tokensIn": r.tokens_in, "tokensOut": r.tokens_out, "tokensInCache": r.cache_reads,
            "tokensOutCache": r.cache_writes, "deletedRangeStart": 0,
            "deletedRangeEnd": max(len(task.history) - 1, 0),
            "contextJsonPath": str(task.folder.path / "api_conversation_history.json"),
            "contextRawPath": str(task.folder.path / "ui_messages.json")}}  # fmt: skip
        result = await self.hook(task, "PreCompact", data, stops_task=False)
        if result.cancel:
            task.say(Notice("The PreCompact hook stopped this compaction; history is unchanged."))
        return not result.cancel, context_block("PreCompact", result.context)

    def notify(self, task: Task, question: Question) -> None:
        """Notification for a question waiting on the user. Its output is ignored and it must
        not hold the question back, so it runs beside it; `settle` waits for the stragglers."""
        if self.hooks is None or not self.hooks.scripts("Notification"):
            return
        event, message = _attention(question)
        data = {"notification": {
            "event": event, "source": question.kind, "message": message[:8000],
            "waitingForUserInput": True, "eventVersion": "1",
            "eventId": f"{task.id}-n{next(self._notification_ids)}",
            "messageTruncated": len(message) > 8000, "sourceType": "ask",
            "sourceId": question.kind, "requiresUserAction": True, "severity": "info"}}  # fmt: skip
        running = asyncio.create_task(self.hook(task, "Notification", data, stops_task=False))
        self._notifications.add(running)
        running.add_done_callback(self._notifications.discard)

    async def settle(self) -> None:
        """Let the Notification hooks still running finish (each has its timeout)."""
        if self._notifications:
            await asyncio.gather(*self._notifications, return_exceptions=True)

    async def on_run(self, task: Task, content: Sequence[Content]) -> list[Content]:
        """TaskStart (or TaskResume) and UserPromptSubmit before the first request of a run;
        their context for the model. A cancel sets `stop_reason`."""
        meta = {"taskId": task.id, "ulid": task.id}
        prompt = next((c.text for c in content if isinstance(c, TextContent)), "")
        if task.history:
            data = {"taskResume": {"taskMetadata": meta, "previousState": {
                "messageCount": len(task.history), "conversationHistoryDeleted": False}}}  # fmt: skip
            first = await self.hook(task, "TaskResume", data)
            source = ("TaskResume", "general")
        else:
            meta_start = {**meta, "initialTask": task.record.task}
            first = await self.hook(task, "TaskStart", {"taskStart": {"taskMetadata": meta_start}})
            source = ("TaskStart", "")
        submit = await self.hook(
            task, "UserPromptSubmit", {"userPromptSubmit": {"prompt": prompt, "attachments": []}}
        )
        if self.hooks is not None and self.hooks.review():
            names = ", ".join(p.name for p in self.hooks.untrusted)
            task.say(
                Notice(
                    f"This project's hooks ({names}) were not run: they are not trusted as they "
                    "are now. Review them, then run `pycline hooks trust`."
                )
            )
        blocks = [
            context_block(source[0], first.context, kind=source[1]),
            context_block("UserPromptSubmit", submit.context),
        ]
        return [TextContent(b) for b in blocks if b]

    async def on_end(self, task: Task, *, completed: bool, result: str) -> None:
        if completed:
            meta = {"taskId": task.id, "ulid": task.id, "result": result, "command": ""}
            await self.hook(task, "TaskComplete", {"taskComplete": {"taskMetadata": meta}})

    async def on_cancel(self, task: Task) -> None:
        meta = {"taskId": task.id, "ulid": task.id, "completionStatus": "cancelled"}
        await self.hook(task, "TaskCancel", {"taskCancel": {"taskMetadata": meta}})

    async def before_tool(self, task: Task, name: str, params: Mapping[str, str]) -> str:
        """PreToolUse; "" to go on, else why the tool is refused (the task then stops)."""
        if name == "attempt_completion":
            return ""
        data = {"preToolUse": {"toolName": name, "parameters": dict(params)}}
        result = await self.hook(task, "PreToolUse", data)
        self._pending_context = result.context
        return "The PreToolUse hook refused this tool call." if result.cancel else ""

    async def after_tool(
        self, task: Task, name: str, params: Mapping[str, str], result: str, ok: bool, ms: int
    ) -> str:
        """PostToolUse; the hooks' context (with PreToolUse's) to append to the tool result."""
        data = {"postToolUse": {"toolName": name, "parameters": dict(params), "result": result,
                                "success": ok, "executionTimeMs": ms}}  # fmt: skip
        post = await self.hook(task, "PostToolUse", data)
        pre, self._pending_context = self._pending_context, ""
        blocks = [
            context_block("PreToolUse", pre, kind=context_type(pre)),
            context_block("PostToolUse", post.context, kind=context_type(post.context)),
        ]
        return "\n\n".join(b for b in blocks if b)


def _attention(question: Question) -> tuple[str, str]:
    """The Notification event and message for a question."""
    match question:
        case CompletionQuestion(result=result):
            return "task_complete", result
        case ApprovalQuestion(summary=summary, preview=preview):
            return "user_attention", f"{summary}\n{preview}".strip()
        case FollowupQuestion(question=text):
            return "user_attention", text
        case PlanQuestion(response=response):
            return "user_attention", response
        case MistakeLimitQuestion(count=count):
            return "user_attention", f"The model made {count} mistakes in a row."
        case ErrorRetryQuestion(error=error):
            return "user_attention", error
        case BudgetQuestion(scope=scope, unit=unit, spent=spent, cap=cap):
            return "user_attention", f"The {scope} cap was reached: {spent:g} / {cap:g} {unit}."
        case _:
            assert_never(question)
