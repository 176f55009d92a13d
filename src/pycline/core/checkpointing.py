"""Checkpoints during a task (SPEC §10): the hook object the task loop calls.

A snapshot is taken when the task starts, after every turn whose tool may have changed files, and
after `attempt_completion`. Each is recorded in the UI log the way Cline does: a `checkpoint_created`
message carrying the commit (`lastCheckpointHash`) and the conversation position
(`conversationHistoryIndex`, used by a *task* restore), and the same hash on the turn's tool
message. A failing checkpoint never fails the task: the user gets a notice and the task goes on
without checkpoints.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from pycline.checkpoints.types import Checkpoint, CheckpointError
from pycline.events import CheckpointCreated, Notice
from pycline.messages import UiMessage
from pycline.parsing.blocks import ToolUseBlock
from pycline.storage.rewind import (
    CALL_ID_KEY,
    CHECKPOINT_KIND,
    HASH_KEY,
    INDEX_KEY,
    INDEX_TS_KEY,
)

if TYPE_CHECKING:
    from pycline.core.streaming import Reply
    from pycline.core.ui_log import UiLog
    from pycline.events import Event
    from pycline.messages import Message
    from pycline.storage.journal import TaskRecorder
    from pycline.storage.records import TaskRecord
    from pycline.tools.base import ToolFacts

log = logging.getLogger(__name__)

# UI messages that stand for the turn's tool; the newest one gets the checkpoint's hash.
_TOOL_KINDS = frozenset({"tool", "completion_result"})


class CheckpointedTask(Protocol):
    """What the hook needs from the task: where it stands, and where to record a checkpoint."""

    @property
    def id(self) -> str: ...

    @property
    def history(self) -> list[Message]: ...

    @property
    def ui(self) -> UiLog: ...

    @property
    def recorder(self) -> TaskRecorder: ...

    @property
    def record(self) -> TaskRecord: ...

    def say(self, event: Event) -> None: ...

    def facts(self, name: str) -> ToolFacts: ...


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


class TaskCheckpoints:
    """The task's checkpoint hook; with no tracker (checkpoints disabled) every call is a no-op.

    A checkpoint's commit runs while the next request streams: nothing the model asks for can
    change the files before its next tool runs, and the task calls `settle()` before that (and
    before hooks run, a cancel or the end of the task). Its place is fixed when it is started:
    the `checkpoint_created` UI message is put after its turn at once and gets its hash when the
    commit is made, and the event names the tool call it follows, so front ends place it by id.
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

    async def at_start(self, task: CheckpointedTask) -> None:
        await self._start(task, "resumed" if task.history else "task start", tool=False)

    async def after_turn(self, task: CheckpointedTask, reply: Reply) -> None:
        block = next((b for b in reply.blocks if isinstance(b, ToolUseBlock)), None)
        if block is None or not task.facts(block.name).checkpointed:
            return
        target = block.params.get("path") or block.params.get("command") or ""
        label = f"after {block.name}" + (f" {' '.join(target.split())[:80]}" if target else "")
        await self._start(task, label, tool=True)

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

    async def at_end(self, task: CheckpointedTask) -> None:
        """Finish the last checkpoint, then apply the retention setting (not after a cancel)."""
        await self.settle()
        if self._tracker is None or self._broken or self.retention <= 0:
            return
        if task.record.status == "cancelled":
            return
        try:
            if len(await self._tracker.list()) > self.retention:
                await self._tracker.prune(self.retention)
        except (CheckpointError, OSError) as exc:
            task.say(Notice(f"Old checkpoints could not be pruned: {exc}"))

    async def _start(self, task: CheckpointedTask, label: str, *, tool: bool) -> None:
        if self._tracker is None or self._broken:
            return
        await self.settle()  # one at a time, in order
        messages = task.ui.messages
        anchor, call_id = _turn_of(messages) if tool else (None, "")
        slot = UiMessage(
            ts=time.time(),
            type="say",
            kind=CHECKPOINT_KIND,
            extra={
                INDEX_KEY: len(task.history) - 1,
                INDEX_TS_KEY: task.history[-1].ts if task.history else None,
                **({CALL_ID_KEY: call_id} if call_id else {}),
            },
        )
        messages.append(slot)
        task.recorder.ui_changed(messages)
        self._pending = asyncio.create_task(
            self._commit(task, label, _Place(slot, anchor, call_id)),
            name=f"checkpoint-{task.id}",
        )

    async def _commit(self, task: CheckpointedTask, label: str, place: _Place) -> None:
        assert self._tracker is not None
        try:
            commit = await self._tracker.commit(commit_message(task.id, label))
        except (CheckpointError, OSError) as exc:
            self._broken = True
            log.info("checkpoint failed for task %s: %s", task.id, exc)
            messages = task.ui.messages
            if (at := _find(messages, place.slot)) is not None:
                del messages[at]
                task.recorder.ui_changed(messages)
            task.say(Notice(f"Checkpoints are off for this task: {exc}"))
            return
        messages = task.ui.messages
        # Found by identity: messages added since do not move them, and a log replaced meanwhile
        # (the conversation rewound) no longer holds them.
        for message in (place.anchor, place.slot):
            if message is not None and (at := _find(messages, message)) is not None:
                message.extra[HASH_KEY] = commit
                task.recorder.ui_edited(messages, at)
        task.say(CheckpointCreated(commit, label, place.call_id))


@dataclass(frozen=True, slots=True)
class _Place:
    slot: UiMessage  # the checkpoint's own message, put after its turn when it was started
    anchor: UiMessage | None  # the turn's tool message, which carries the checkpoint's hash too
    call_id: str  # the turn's tool call ("" for the checkpoint at the start of a run)


def _turn_of(messages: list[UiMessage]) -> tuple[UiMessage | None, str]:
    """The turn's tool message (which carries the hash) and the id of its tool call."""
    anchor: UiMessage | None = None
    for m in reversed(messages):
        if m.kind == "api_req_started":
            break  # the start of this turn
        if anchor is None and m.type == "say" and m.kind in _TOOL_KINDS:
            anchor = m
        if isinstance(call_id := m.extra.get(CALL_ID_KEY), str) and call_id:
            return anchor, call_id
    return anchor, ""


def _find(messages: list[UiMessage], message: UiMessage) -> int | None:
    for i in range(len(messages) - 1, -1, -1):
        if messages[i] is message:
            return i
    return None
