"""Saved tasks, for every front end: list, search, show, export, delete, star.

Each use case returns data; the terminal, the web UI and an editor server render it their way.
"""

from __future__ import annotations

import asyncio
import builtins
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from pycline.core.resumption import ago
from pycline.errors import StorageError
from pycline.events import Envelope
from pycline.messages import UiMessage
from pycline.storage.export import transcript_summary
from pycline.storage.records import TaskRecord
from pycline.storage.task_store import Problem, TaskFolder, TaskStore

__all__ = [
    "Deleted",
    "Exported",
    "Problem",
    "TaskDetails",
    "TaskList",
    "TaskRecord",
    "Tasks",
    "ago",
    "transcript_summary",
]


@dataclass(frozen=True, slots=True)
class TaskList:
    records: list[TaskRecord]
    problems: list[Problem]  # task folders that cannot be read (the rest is listed)


@dataclass(frozen=True, slots=True)
class TaskDetails:
    record: TaskRecord
    size: int
    messages: list[UiMessage]  # Cline's UI log, written from the events
    problem: str | None = None  # why the messages cannot be shown, when they cannot
    events: list[Envelope] = field(default_factory=list)  # what the task showed


@dataclass(frozen=True, slots=True)
class Exported:
    task_id: str
    markdown: str
    path: Path | None = None  # where it was written, if it was


@dataclass(frozen=True, slots=True)
class Deleted:
    task_id: str
    note: str  # what happened to its checkpoints ("" when there were none)


class Tasks:
    """The saved tasks under one pycline home."""

    def __init__(self, home: Path) -> None:
        self.store = TaskStore(home)

    def records(
        self,
        *,
        search: str = "",
        workspace: Path | None = None,
        favorites_only: bool = False,
        limit: int = 500,
    ) -> list[TaskRecord]:
        """The saved tasks, newest first (those of `workspace` only, when given)."""
        where = str(workspace.resolve()) if workspace is not None else None
        return self.store.index.list(
            search=search, workspace=where, favorites_only=favorites_only, limit=limit
        )

    def exists(self, task_id: str) -> bool:
        return (self.store.tasks_dir / task_id).is_dir() and task_id not in ("", ".", "..")

    def record(self, task_id: str) -> TaskRecord:
        """`StorageError` when there is no such task or it cannot be read."""
        return self.store.open(task_id).load_record()

    def rewind_before_message(self, task_id: str, ts: float, text: str) -> int:
        """Cut the task back to before the user's message shown at `ts` with `text` (a page
        knows its messages by time; the saved log may differ by the moment it was written);
        how many of the model's messages were removed."""
        from pycline.checkpoints.types import CheckpointError
        from pycline.storage.rewind import rewind_before

        folder = self.store.open(task_id)
        ui = folder.load_ui_messages()
        said = [i for i, m in enumerate(ui) if i > 0 and m.kind == "user_feedback"]
        same = [i for i in said if ui[i].text.strip() == text.strip()]
        candidates = same or said
        if not candidates:
            raise CheckpointError("That message is not in the saved task.")
        at = min(candidates, key=lambda i: abs(ui[i].ts - ts))
        return rewind_before(folder, at).api_messages_removed

    def list(
        self,
        *,
        search: str = "",
        limit: int = 50,
        favorites: bool = False,
        workspace: Path | None = None,
    ) -> TaskList:
        """The newest tasks first; only those of `workspace` when one is given."""
        problems = self.store.sync()
        where = None if workspace is None else str(workspace.resolve())
        records = self.store.index.list(
            search=search, limit=limit, favorites_only=favorites, workspace=where
        )
        return TaskList(records, problems)

    def folder(self, task_id: str | None, *, workspace: Path) -> TaskFolder:
        """The task `task_id`, or the latest task in `workspace` when no id is given."""
        if task_id is None:
            where = str(workspace.resolve())
            task_id = self.store.latest(where)
            if task_id is None:
                raise StorageError(f"No task in {where}; give a task id (see `pycline history`).")
        return self.store.open(task_id)

    def show(self, task_id: str | None, *, workspace: Path) -> TaskDetails:
        folder = self.folder(task_id, workspace=workspace)
        record = folder.load_record()
        size = folder.disk_size()
        try:
            return TaskDetails(record, size, folder.load_ui_messages(), events=folder.load_events())
        except StorageError as exc:
            return TaskDetails(record, size, [], str(exc))

    async def transcript(
        self, task_id: str, *, before: float | None = None
    ) -> builtins.list[Envelope]:
        """Everything the task showed, as the events it showed (numbered from 1): what every
        front end replays a saved task from. `before`: only what was shown before that time (a
        task resumed since: the part before its new run)."""
        folder = self.store.open(task_id)
        events = await asyncio.to_thread(folder.load_events)
        return events if before is None else [e for e in events if e.ts < before]

    def export(self, task_id: str | None, *, workspace: Path, to: Path | None = None) -> Exported:
        """The conversation as Markdown; written to `to` (a file, or a folder to put it in)."""
        from pycline.storage.atomic import atomic_write_text
        from pycline.storage.export import export_file_name, export_markdown

        folder = self.folder(task_id, workspace=workspace)
        text = export_markdown(folder.load_api_history())
        if to is None:
            return Exported(folder.id, text)
        path = to.expanduser()
        if path.is_dir():
            path = path / export_file_name(float(folder.id) / 1000 if folder.id.isdigit() else 0)
        try:
            atomic_write_text(path, text)
        except OSError as exc:
            raise StorageError(f"Cannot write {path}: {exc}") from exc
        return Exported(folder.id, text, path)

    def set_favorite(self, task_id: str, favorite: bool) -> TaskRecord:
        return self.store.open(task_id).set_favorite(favorite)

    async def delete(self, task_id: str) -> Deleted:
        """Delete the task's folder and index row, then its checkpoints."""
        folder = self.store.open(task_id)
        try:
            record: TaskRecord | None = folder.load_record()
        except StorageError:
            record = self.store.index.get(task_id)  # metadata damaged: the index may know
        self.store.delete(task_id)
        note = ""
        if record is not None and record.workspace:
            note = await forget_checkpoints(self.store, record)
        return Deleted(task_id, note)


async def forget_checkpoints(store: TaskStore, record: TaskRecord) -> str:
    """Delete a deleted task's checkpoints; the whole store when no other task needs it."""
    from pycline.checkpoints import CheckpointError, ShadowGit
    from pycline.core.checkpointing import task_of

    tracker = ShadowGit(Path(record.workspace), store.home)
    if not (tracker.git_dir / "HEAD").exists():
        return ""
    others = store.index.list(workspace=record.workspace, limit=1)
    if not Path(record.workspace).is_dir():
        if others:
            return ""
        await asyncio.to_thread(shutil.rmtree, tracker.git_dir, True)
        return "Its workspace is gone, so its checkpoint store was removed."
    try:
        every = await tracker.list()
        mine = [c.commit for c in every if task_of(c.message) == record.id]
        removed = await tracker.forget(mine)
    except CheckpointError as exc:
        return f"Its checkpoints were kept: {exc}"
    if removed == len(every) and not others:
        await asyncio.to_thread(shutil.rmtree, tracker.git_dir, True)
    return f"Removed its {removed} checkpoints." if removed else ""
