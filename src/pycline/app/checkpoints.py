"""A task's checkpoints, for every front end: list, diff, restore (files, conversation or both).

Each use case returns data; front ends render it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal, TypeAlias

from pycline.checkpoints import Checkpoint, CheckpointError, FileChange, ShadowGit
from pycline.core.checkpointing import commit_message, task_of
from pycline.errors import StorageError
from pycline.storage.records import TaskRecord
from pycline.storage.task_store import TaskFolder, TaskStore

if TYPE_CHECKING:
    from pycline.checkpoints.types import RestoreResult
    from pycline.storage.rewind import Rewound

RestoreMode: TypeAlias = Literal["workspace", "task", "both"]


@dataclass(frozen=True, slots=True)
class TaskCheckpointList:
    record: TaskRecord
    checkpoints: list[Checkpoint]  # oldest first: number n is checkpoints[n - 1]


@dataclass(frozen=True, slots=True)
class Diff:
    first: Checkpoint
    second: Checkpoint | None  # None: compared with the files as they are now
    changes: list[FileChange]


@dataclass(frozen=True, slots=True)
class Restored:
    record: TaskRecord
    checkpoint: Checkpoint
    files: RestoreResult | None  # when the workspace was restored
    undo: str | None  # the checkpoint taken just before, to undo a workspace restore
    conversation: Rewound | None  # when the conversation was cut back


def pick(checkpoints: list[Checkpoint], ref: str) -> Checkpoint:
    """A checkpoint by its number in the task's list (1 = oldest) or by a commit prefix."""
    if ref.isdigit() and len(ref) < 4:
        n = int(ref)
        if 1 <= n <= len(checkpoints):
            return checkpoints[n - 1]
        raise CheckpointError(f"This task has {len(checkpoints)} checkpoints; there is no #{n}.")
    found = [c for c in checkpoints if c.commit.startswith(ref.lower())] if len(ref) >= 4 else []
    if len(found) == 1:
        return found[0]
    if found:
        raise CheckpointError(f"{ref!r} matches several checkpoints; give more of the commit.")
    raise CheckpointError(f"This task has no checkpoint {ref!r} (see `pycline checkpoints`).")


class Checkpoints:
    """The checkpoints of the saved tasks under one pycline home."""

    def __init__(self, home: Path) -> None:
        self.store = TaskStore(home)

    def tracker(self, record: TaskRecord) -> ShadowGit:
        return ShadowGit(Path(record.workspace), self.store.home)

    def _open(self, task_id: str | None, workspace: Path) -> tuple[TaskFolder, TaskRecord]:
        if task_id is None:
            where = str(workspace.resolve())
            task_id = self.store.latest(where)
            if task_id is None:
                raise StorageError(f"No task in {where}; give a task id (see `pycline history`).")
        folder = self.store.open(task_id)
        return folder, folder.load_record()

    async def of_record(self, record: TaskRecord) -> list[Checkpoint]:
        tracker = self.tracker(record)
        if not (tracker.git_dir / "HEAD").exists():
            return []  # never checkpointed: do not create a store just to find it empty
        return [c for c in await tracker.list() if task_of(c.message) == record.id]

    async def list(self, task_id: str | None, *, workspace: Path) -> TaskCheckpointList:
        _, record = self._open(task_id, workspace)
        return TaskCheckpointList(record, await self.of_record(record))

    async def diff(
        self, task_id: str | None, ref: str, ref2: str | None = None, *, workspace: Path
    ) -> Diff:
        _, record = self._open(task_id, workspace)
        checkpoints = await self.of_record(record)
        first = pick(checkpoints, ref)
        second = pick(checkpoints, ref2) if ref2 else None
        changes = await self.tracker(record).diff(
            first.commit, second.commit if second is not None else None
        )
        return Diff(first, second, list(changes))

    async def undo_target(self, task_id: str | None, *, workspace: Path) -> tuple[str, Checkpoint]:
        """(the task's id, the checkpoint an undo goes back to): the newest one of the
        conversation as it is now whose files differ from the workspace's. A restore's own
        checkpoint, or one a rewind cut away, is not a step of the conversation, so an undo
        right after a rewind steps back from where the rewind left the task."""
        from pycline.storage.rewind import CHECKPOINT_KIND, HASH_KEY

        folder, record = self._open(task_id, workspace)
        by_commit = {c.commit: c for c in await self.of_record(record)}
        steps = [
            by_commit[commit]
            for m in folder.load_ui_messages()
            if m.kind == CHECKPOINT_KIND
            and isinstance(commit := m.extra.get(HASH_KEY), str)
            and commit in by_commit
        ]
        tracker = self.tracker(record)
        for checkpoint in reversed(steps):
            if await tracker.diff(checkpoint.commit, None):
                return record.id, checkpoint
        raise CheckpointError("Nothing to undo: the files are as at the task's first checkpoint.")

    async def restore(
        self, task_id: str, ref: str, mode: RestoreMode, *, workspace: Path
    ) -> Restored:
        from pycline.storage.rewind import check, rewind

        folder, record = self._open(task_id, workspace)
        checkpoint = pick(await self.of_record(record), ref)
        if mode in ("task", "both"):
            check(folder, checkpoint.commit)  # first, so "both" never does half its job
        files = undo = None
        if mode in ("workspace", "both"):
            tracker = self.tracker(record)
            # The files as they are now become a checkpoint too, so the restore can be undone.
            label = f"before restoring {checkpoint.commit[:10]}"
            undo = await tracker.commit(commit_message(record.id, label))
            files = await tracker.restore(checkpoint.commit)
        conversation = rewind(folder, checkpoint.commit) if mode in ("task", "both") else None
        return Restored(record, checkpoint, files, undo, conversation)
