"""Checkpoints during a task (SPEC §10): the hook object the task loop calls.

A snapshot is taken when the task starts, after every turn whose tool may have changed files
(the tool's facts say it is checkpointed), and after `attempt_completion`. Each is announced by a
`CheckpointCreated` event naming the tool call whose turn it follows; the recorder places it in
the task's log with the conversation position a *task* restore cuts back to. A failing
checkpoint never fails the task: the user gets a notice and the task goes on without checkpoints.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

from pycline.checkpoints.types import Checkpoint, CheckpointError
from pycline.core.capability import Capability, RunContext, Stop
from pycline.events import CheckpointCreated, Notice
from pycline.messages import Content
from pycline.parsing.blocks import ToolUseBlock
from pycline.tools.base import ToolCall

if TYPE_CHECKING:
    from pycline.core.streaming import Reply

log = logging.getLogger(__name__)


class Tracker(Protocol):
    """What the hook needs from a checkpoint store (`ShadowGit` provides it)."""

    async def commit(self, message: str) -> str: ...

    async def list(self) -> Sequence[Checkpoint]: ...

    async def prune(self, keep_last: int) -> int: ...


def commit_message(task_id: str, label: str) -> str:
    """Checkpoint messages start with the task id: one shadow repository serves every task of a
    workspace, and this is how a task finds its own checkpoints."""
    return f"{task_id}: {label}"


def task_of(message: str) -> str:
    return message.split(":", 1)[0] if ":" in message else ""


def label_of(message: str) -> str:
    return message.split(":", 1)[1].strip() if ":" in message else message


class TaskCheckpoints(Capability):
    """The task's checkpoints; with no tracker (checkpoints disabled) every call is a no-op.

    A checkpoint's commit runs while the next request streams: nothing the model asks for can
    change the files before its next tool runs, and the task calls `settle()` before that (and
    before hooks run, a cancel or the end of the task). Its event names the tool call whose turn
    it follows, so front ends and the recorder place it by id, never by arrival order.
    """

    def __init__(self, tracker: Tracker | None = None, *, retention: int = 0) -> None:
        self._tracker = tracker
        self.retention = retention  # keep this many per workspace after a task; 0 keeps all
        self._broken = False
        self._pending: asyncio.Task[None] | None = None

    @property
    def enabled(self) -> bool:
        return self._tracker is not None and not self._broken

    @property
    def pending(self) -> bool:
        """A checkpoint is being taken (its commit is not made yet)."""
        return self._pending is not None and not self._pending.done()

    async def before_run(self, ctx: RunContext, content: Sequence[Content]) -> list[Content] | Stop:
        await self._start(ctx, "resumed" if ctx.history else "task start", "")
        return []

    async def before_tool(self, ctx: RunContext, call: ToolCall) -> str:
        await self.settle()  # the last checkpoint is made before a tool runs
        return ""

    async def after_turn(self, ctx: RunContext, reply: Reply) -> None:
        block = next((b for b in reply.blocks if isinstance(b, ToolUseBlock)), None)
        if block is None or not ctx.facts(block.name).checkpointed:
            return
        target = block.params.get("path") or block.params.get("command") or ""
        label = f"after {block.name}" + (f" {' '.join(target.split())[:80]}" if target else "")
        await self._start(ctx, label, reply.tool_call_id)

    async def settle(self) -> None:
        """Wait for the checkpoint being taken, if any: call before anything may change files.

        Shielded: a task cancelled while it waits must not cut a commit (and its record) short;
        the commit stays pending, so the end of the task still waits for it.
        """
        pending = self._pending
        if pending is None:
            return
        try:
            await asyncio.shield(pending)
        finally:
            if pending.done() and self._pending is pending:
                self._pending = None

    async def close(self, ctx: RunContext) -> None:
        """Finish the last checkpoint, then apply the retention setting (not after a cancel)."""
        await self.settle()
        if self._tracker is None or self._broken or self.retention <= 0:
            return
        if ctx.record.status == "cancelled":
            return
        try:
            if len(await self._tracker.list()) > self.retention:
                await self._tracker.prune(self.retention)
        except (CheckpointError, OSError) as exc:
            ctx.say(Notice(f"Old checkpoints could not be pruned: {exc}"))

    async def _start(self, ctx: RunContext, label: str, call_id: str) -> None:
        if self._tracker is None or self._broken:
            return
        await self.settle()  # one at a time, in order
        self._pending = asyncio.create_task(
            self._commit(ctx, label, call_id), name=f"checkpoint-{ctx.task_id}"
        )

    async def _commit(self, ctx: RunContext, label: str, call_id: str) -> None:
        assert self._tracker is not None
        try:
            commit = await self._tracker.commit(commit_message(ctx.task_id, label))
        except (CheckpointError, OSError) as exc:
            self._broken = True
            log.info("checkpoint failed for task %s: %s", ctx.task_id, exc)
            ctx.say(Notice(f"Checkpoints are off for this task: {exc}"))
            return
        ctx.say(CheckpointCreated(commit, label, call_id))
