"""The user's hooks (`core.hooks`) at their points of a task, as a capability.

TaskStart or TaskResume and UserPromptSubmit before the first request of a run (their context
goes to the model), PreToolUse and PostToolUse around each call (a refusal stops the task, the
context joins the result), PreCompact before history is condensed or trimmed (it may keep the
history as it is), Notification while a question waits (beside it: its output is ignored),
TaskComplete or TaskCancel at the end. A hook is a program that may change files: a checkpoint
being taken is finished first (`settle`).
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, assert_never

from pycline.core.capability import Capability, RunContext, Stop
from pycline.core.hooks import HookResult, Hooks, context_block, context_type
from pycline.core.options import TaskOutcome
from pycline.events import (
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
from pycline.messages import Content, TextContent
from pycline.tools.base import ToolCall


async def _nothing_pending() -> None:
    return None


class HookPoints(Capability):
    def __init__(
        self, hooks: Hooks, *, settle: Callable[[], Awaitable[None]] = _nothing_pending
    ) -> None:
        self.hooks = hooks
        self._settle = settle
        self.stop_reason: str | None = None  # a hook cancelled the task
        self._pending_context = ""  # PreToolUse's context, sent with the tool's result
        self._notifications: set[asyncio.Task[HookResult]] = set()
        self._notification_ids = itertools.count(1)

    async def run(
        self, ctx: RunContext, name: str, data: dict[str, Any], *, stops_task: bool = True
    ) -> HookResult:
        self.hooks.common = {
            "taskId": ctx.task_id,
            "workspaceRoots": [str(ctx.workspace.root)],
            "userId": "unknown",
            "model": {"provider": ctx.provider.name, "slug": ctx.provider.model.id},
        }
        await self._settle()
        result = await self.hooks.run(name, data)
        for error in result.errors:
            ctx.say(Notice(f"Hook {name}: {error}"))
        if result.cancel and stops_task:
            self.stop_reason = f"The {name} hook cancelled the task."
        return result

    async def before_run(self, ctx: RunContext, content: Sequence[Content]) -> list[Content] | Stop:
        meta = {"taskId": ctx.task_id, "ulid": ctx.task_id}
        prompt = next((c.text for c in content if isinstance(c, TextContent)), "")
        if ctx.history:
            data = {"taskResume": {"taskMetadata": meta, "previousState": {
                "messageCount": len(ctx.history), "conversationHistoryDeleted": False}}}  # fmt: skip
            first = await self.run(ctx, "TaskResume", data)
            source = ("TaskResume", "general")
        else:
            started = {**meta, "initialTask": ctx.record.task}
            first = await self.run(ctx, "TaskStart", {"taskStart": {"taskMetadata": started}})
            source = ("TaskStart", "")
        submit = await self.run(
            ctx, "UserPromptSubmit", {"userPromptSubmit": {"prompt": prompt, "attachments": []}}
        )
        if self.hooks.review():
            names = ", ".join(p.name for p in self.hooks.untrusted)
            ctx.say(
                Notice(
                    f"This project's hooks ({names}) were not run: they are not trusted as they "
                    "are now. Review them, then run `pycline hooks trust`."
                )
            )
        if self.stop_reason is not None:
            return Stop(self.stop_reason)
        blocks = [
            context_block(source[0], first.context, kind=source[1]),
            context_block("UserPromptSubmit", submit.context),
        ]
        return [TextContent(b) for b in blocks if b]

    async def before_tool(self, ctx: RunContext, call: ToolCall) -> str:
        if call.name == "attempt_completion":
            return ""
        data = {"preToolUse": {"toolName": call.name, "parameters": dict(call.params)}}
        result = await self.run(ctx, "PreToolUse", data)
        self._pending_context = result.context
        return "The PreToolUse hook refused this tool call." if result.cancel else ""

    async def after_tool(
        self, ctx: RunContext, call: ToolCall, result: str, ok: bool, ms: int
    ) -> str:
        data = {"postToolUse": {"toolName": call.name, "parameters": dict(call.params),
                                "result": result, "success": ok, "executionTimeMs": ms}}  # fmt: skip
        post = await self.run(ctx, "PostToolUse", data)
        pre, self._pending_context = self._pending_context, ""
        blocks = [
            context_block("PreToolUse", pre, kind=context_type(pre)),
            context_block("PostToolUse", post.context, kind=context_type(post.context)),
        ]
        return "\n\n".join(b for b in blocks if b)

    async def after_step(self, ctx: RunContext) -> TaskOutcome | None:
        return TaskOutcome(False, self.stop_reason) if self.stop_reason is not None else None

    async def before_compact(
        self, ctx: RunContext, strategy: str, context_size: int
    ) -> tuple[bool, str]:
        r = ctx.record
        last = max(len(ctx.history) - 1, 0)
        data = {"preCompact": {
            "taskId": ctx.task_id, "ulid": ctx.task_id, "contextSize": context_size,
            "compactionStrategy": strategy, "previousApiReqIndex": last,
            "tokensIn": r.tokens_in, "tokensOut": r.tokens_out, "tokensInCache": r.cache_reads,
            "tokensOutCache": r.cache_writes, "deletedRangeStart": 0, "deletedRangeEnd": last,
            "contextJsonPath": str(ctx.folder / "api_conversation_history.json"),
            "contextRawPath": str(ctx.folder / "ui_messages.json")}}  # fmt: skip
        result = await self.run(ctx, "PreCompact", data, stops_task=False)
        if result.cancel:
            ctx.say(Notice("The PreCompact hook stopped this compaction; history is unchanged."))
        return not result.cancel, context_block("PreCompact", result.context)

    def question(self, ctx: RunContext, question: Question) -> None:
        """Notification for a question waiting on the user. Its output is ignored and it must
        not hold the question back, so it runs beside it; `close` waits for the stragglers."""
        if not self.hooks.scripts("Notification"):
            return
        event, message = _attention(question)
        data = {"notification": {
            "event": event, "source": question.kind, "message": message[:8000],
            "waitingForUserInput": True, "eventVersion": "1",
            "eventId": f"{ctx.task_id}-n{next(self._notification_ids)}",
            "messageTruncated": len(message) > 8000, "sourceType": "ask",
            "sourceId": question.kind, "requiresUserAction": True, "severity": "info"}}  # fmt: skip
        running = asyncio.create_task(self.run(ctx, "Notification", data, stops_task=False))
        self._notifications.add(running)
        running.add_done_callback(self._notifications.discard)

    async def on_end(self, ctx: RunContext, outcome: TaskOutcome) -> None:
        if outcome.completed:
            meta = {"taskId": ctx.task_id, "ulid": ctx.task_id, "result": outcome.reason,
                    "command": ""}  # fmt: skip
            await self.run(ctx, "TaskComplete", {"taskComplete": {"taskMetadata": meta}})

    async def on_cancel(self, ctx: RunContext) -> None:
        meta = {"taskId": ctx.task_id, "ulid": ctx.task_id, "completionStatus": "cancelled"}
        await self.run(ctx, "TaskCancel", {"taskCancel": {"taskMetadata": meta}})

    async def close(self, ctx: RunContext) -> None:
        """Let the Notification hooks still running finish (each has its timeout)."""
        if self._notifications:
            await asyncio.gather(*self._notifications, return_exceptions=True)


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
