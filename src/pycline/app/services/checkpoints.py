"""A task's checkpoints, for every front end: list, diff, restore (files, conversation or both).

Each use case returns data; front ends render it.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal, TypeAlias

from pycline.checkpoints import Checkpoint, CheckpointError, FileChange, ShadowGit
from pycline.core.checkpointing import commit_message, label_of, task_of
from pycline.errors import PyclineError, StorageError
from pycline.storage.records import TaskRecord
from pycline.storage.task_store import TaskFolder, TaskStore

if TYPE_CHECKING:
    from pycline.checkpoints.types import RestoreResult
    from pycline.storage.rewind import Rewound

__all__ = [
    "CheckpointError",
    "Checkpoints",
    "DiskUse",
    "FileChange",
    "RestoreMode",
    "Restored",
    "files_changed",
    "label_of",
    "task_of",
]

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

    async def files_changed(self, task_id: str, *, workspace: Path) -> int | None:
        """How many files differ from the task's first checkpoint; None without checkpoints."""
        listed = await self.list(task_id, workspace=workspace)
        if not listed.checkpoints:
            return None
        tracker = self.tracker(listed.record)
        return len(await tracker.diff(listed.checkpoints[0].commit, None))

    async def undo_last_step(self, task_id: str, *, workspace: Path) -> Restored:
        """Files and conversation back to before the task's last change (see `undo_target`);
        the restore itself can be undone."""
        found_id, checkpoint = await self.undo_target(task_id, workspace=workspace)
        return await self.restore(found_id, checkpoint.commit, "both", workspace=workspace)

    async def disk_use(self, *, remove_orphans: bool = False) -> tuple[DiskUse, ...]:
        """The space each workspace's checkpoints take, after compacting them (`git gc`); the
        stores of workspaces that are gone are removed with `remove_orphans`."""
        base = self.store.home / "checkpoints"
        dirs = sorted(p for p in base.iterdir() if p.is_dir()) if base.is_dir() else []
        return tuple([await self._disk_use(d, remove_orphans=remove_orphans) for d in dirs])

    async def _disk_use(self, git_dir: Path, *, remove_orphans: bool) -> DiskUse:
        workspace = await asyncio.to_thread(_shadow_workspace, git_dir)
        before = await asyncio.to_thread(_tree_size, git_dir)
        if workspace is None or not workspace.is_dir():
            if remove_orphans:
                await asyncio.to_thread(shutil.rmtree, git_dir, True)
                return DiskUse(workspace, before, 0, gone=True, removed=True)
            return DiskUse(workspace, before, before, gone=True)
        tracker = ShadowGit(workspace, self.store.home)
        try:
            count = len(await tracker.list())
            await tracker.gc()
        except CheckpointError as exc:
            return DiskUse(workspace, before, before, problem=str(exc))
        after = await tracker.disk_usage()
        tasks = len({task_of(c.message) for c in await tracker.list()} - {""})
        return DiskUse(workspace, before, after, checkpoints=count, tasks=tasks)


async def files_changed(home: Path, task_id: str) -> int | None:
    """How many files the task changed (since its first checkpoint), for the line after it;
    None when it has no checkpoints or they cannot be read."""
    try:
        return await Checkpoints(home).files_changed(task_id, workspace=Path.cwd())
    except PyclineError:
        return None


@dataclass(frozen=True, slots=True)
class DiskUse:
    """One workspace's checkpoint store: its size before and after compacting, in bytes."""

    workspace: Path | None  # None: the store does not say whose it is
    before: int
    after: int
    checkpoints: int = 0
    tasks: int = 0
    gone: bool = False  # the workspace folder no longer exists
    removed: bool = False  # ...and its store was deleted
    problem: str = ""  # why it could not be compacted


def _shadow_workspace(git_dir: Path) -> Path | None:
    """The workspace a checkpoint store belongs to (its `pycline.workspace` config value)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env["GIT_CONFIG_NOSYSTEM"] = "1"
    try:
        done = subprocess.run(
            ["git", "config", "--file", str(git_dir / "config"), "--get", "pycline.workspace"],
            env=env,
            capture_output=True,
            text=True,
            timeout=30,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    value = done.stdout.strip()
    return Path(value) if done.returncode == 0 and value else None


def _tree_size(root: Path) -> int:
    total = 0
    for dirpath, _dirs, files in os.walk(root):
        for name in files:
            try:
                total += os.lstat(os.path.join(dirpath, name)).st_blocks * 512
            except FileNotFoundError:
                continue
    return total
