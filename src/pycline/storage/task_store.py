"""Per-task folders (SPEC §9): the files Cline keeps, each written atomically."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import shutil
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pycline.errors import StorageError
from pycline.events import CheckpointCreated, Envelope
from pycline.messages import Message, UiMessage
from pycline.storage import event_log
from pycline.storage.atomic import atomic_write_json
from pycline.storage.cline_ui import BASE, Derived, derive
from pycline.storage.event_log import Note
from pycline.storage.history import HistoryIndex
from pycline.storage.integrity import Problem, sync_index
from pycline.storage.journal import JOURNAL, Replayed, replay
from pycline.storage.layout import (
    API_HISTORY,
    CONTEXT_HISTORY,
    METADATA,
    TRASH_PREFIX,
    UI_MESSAGES,
)
from pycline.storage.legacy_ui import events_from_ui
from pycline.storage.records import TaskRecord

__all__ = [
    "API_HISTORY",
    "CONTEXT_HISTORY",
    "METADATA",
    "TRASH_PREFIX",
    "UI_MESSAGES",
    "Problem",
    "TaskFolder",
    "TaskStore",
]


class TaskFolder:
    """One task's folder: Cline's files plus the journal of changes not yet folded into them.

    A running task writes through its `TaskRecorder` (storage.journal) only; these whole-file
    saves are for changes made while no task runs (a checkpoint restore), and fold the journal in
    first so nothing it holds is lost.
    """

    def __init__(self, path: Path, index: HistoryIndex | None = None) -> None:
        self.path = path
        self.index = index

    @property
    def id(self) -> str:
        return self.path.name

    def save_api_history(self, messages: Sequence[Message]) -> None:
        self.fold_journal()
        atomic_write_json(self.path / API_HISTORY, [m.to_json() for m in messages])

    def save_ui_messages(self, messages: Sequence[UiMessage]) -> None:
        self.fold_journal()
        atomic_write_json(self.path / UI_MESSAGES, [m.to_json() for m in messages])

    def save_record(self, record: TaskRecord) -> None:
        self.fold_journal()
        # The folder first, then the index: the folder is the truth the index is rebuilt from,
        # so a kill between the two leaves at worst a stale index row.
        record.size = self.disk_size()
        self._write_record(record)
        favorite = self.index_record(record)
        if favorite != record.favorite:
            # Starred or unstarred by `pycline favorite` while this task was running.
            record.favorite = favorite
            self._write_record(record)

    def index_record(self, record: TaskRecord) -> bool:
        """Update the history index; returns the favourite flag it holds for the task."""
        return self.index.upsert(record) if self.index is not None else record.favorite

    def fold_journal(self) -> int:
        """Rewrite Cline's files with the journal applied, then drop the journal; bytes written."""
        journal = self.path / JOURNAL
        if not journal.exists():
            return 0
        replayed = self._replayed()
        written = 0
        if replayed.api is not None:
            written += _write_json(self.path / API_HISTORY, replayed.api)
        if replayed.ui is not None:
            written += _write_json(self.path / UI_MESSAGES, replayed.ui)
        if replayed.has_context:
            written += _write_json(self.path / CONTEXT_HISTORY, replayed.context)
        if replayed.record is not None:
            written += _write_json(self.path / METADATA, {"record": replayed.record})
        journal.unlink()
        return written

    def _replayed(self) -> Replayed:
        return replay(
            self.path / JOURNAL,
            lambda: self._load_list_or_empty(API_HISTORY),
            lambda: self._load_list_or_empty(UI_MESSAGES),
        )

    def _load_list_or_empty(self, name: str) -> list[dict[str, Any]]:
        if not (self.path / name).exists():
            return []
        return self._load_list(name)

    def set_favorite(self, favorite: bool) -> TaskRecord:
        record = self.load_record()
        record.favorite = favorite
        self._write_record(record)
        if self.index is not None and not self.index.set_favorite(record.id, favorite):
            self.index.restore(record)
        return record

    def _write_record(self, record: TaskRecord) -> None:
        atomic_write_json(self.path / METADATA, {"record": record.to_json()})

    def save_context(self, state: dict[str, Any]) -> None:
        self.fold_journal()
        atomic_write_json(self.path / CONTEXT_HISTORY, state)

    def load_context(self) -> object:
        """The saved context-window state; None when there is none or it cannot be read."""
        try:
            replayed = self._replayed()
            return replayed.context if replayed.has_context else self._load(CONTEXT_HISTORY)
        except StorageError:
            return None

    def load_api_history(self) -> list[Message]:
        """The saved conversation; empty when the task was stopped before its first write."""
        raw = self._replayed().api
        if raw is None and not (self.path / API_HISTORY).exists():
            return []
        try:
            return [
                Message.from_json(m)
                for m in (raw if raw is not None else self._load_list(API_HISTORY))
            ]
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise StorageError(f"{self.path / API_HISTORY} is corrupt: {exc!r}") from exc

    # --- what the task showed: the event log, and Cline's UI log written from it ---------------

    @property
    def events_path(self) -> Path:
        return self.path / event_log.EVENTS

    def has_event_log(self) -> bool:
        return self.events_path.exists()

    def load_ui_messages(self) -> list[UiMessage]:
        """Cline's UI log: written from the event log, after the messages of an earlier pycline
        that predate it (a task saved before the event log has only those)."""
        if not self.has_event_log():
            return self._legacy_ui()
        return self._derived().messages

    def load_events(self) -> list[Envelope]:
        """Everything the task showed, in order, as events (numbered from 1): the messages of an
        earlier pycline read back as events, then the event log."""
        entries = event_log.read(self.events_path)
        count = event_log.base_count(entries) if entries or self.has_event_log() else -1
        legacy = self._legacy_ui_or_empty(count)
        events = [Envelope(self.id, 0, ts, e) for ts, e in events_from_ui(self.id, legacy)]
        for entry in entries:
            if isinstance(entry, Envelope):
                events.append(entry)
            elif entry.kind == "ui" and isinstance(entry.data.get("m"), dict):
                with contextlib.suppress(KeyError, TypeError, ValueError):
                    note = UiMessage.from_json(entry.data["m"])
                    events += [
                        Envelope(self.id, 0, ts, e) for ts, e in events_from_ui(self.id, [note])
                    ]
        return [dataclasses.replace(e, task_id=self.id, seq=i) for i, e in enumerate(events, 1)]

    def start_event_log(self) -> int:
        """Before a run appends to the log: a folder without one (new, or saved by an earlier
        pycline) gets its first line, naming how many messages of its UI log came before."""
        if self.has_event_log():
            return 0
        count = len(self._legacy_ui_or_empty(-1))
        fd = event_log.open_for_append(self.events_path)
        try:
            data = event_log.dumps(event_log.note("base", ui=count))
            os.write(fd, data)
        finally:
            os.close(fd)
        return len(data)

    def write_ui_messages(self) -> int:
        """Write Cline's UI log from the event log (at the end of a run); bytes written."""
        if not self.has_event_log():
            return 0
        return _write_json(self.path / UI_MESSAGES, [m.to_json() for m in self._derived().messages])

    def cut_events(self, keep_ui: int, tally: UiMessage) -> None:
        """Cut the task's log back to its first `keep_ui` UI messages, then `tally` (a restore;
        no task is running). Written before Cline's UI log, which is only a copy of it."""
        if not self.has_event_log():
            return
        entries = event_log.read(self.events_path)
        count = event_log.base_count(entries)
        tail = event_log.note("ui", m=tally.to_json())
        if keep_ui <= count:
            event_log.rewrite(self.events_path, [event_log.note("base", ui=keep_ui), tail])
            return
        derived = derive(self._legacy_ui_or_empty(count), entries)
        kept = {o for o in derived.origins[:keep_ui] if o != BASE}
        removed = [o for o in derived.origins[keep_ui:] if o != BASE]
        cut = min(removed, default=len(entries))
        out = []
        for at, entry in enumerate(entries):
            late = isinstance(entry, Envelope) and isinstance(entry.event, CheckpointCreated)
            position = isinstance(entry, Note) and entry.kind == "position"
            if late or position:
                # A checkpoint is kept with its turn, whenever its commit was made.
                owner = at - 1 if position else at
                if owner in kept:
                    out.append(entry)
            elif at < cut:
                out.append(entry)
        event_log.rewrite(self.events_path, [*out, tail])

    def _derived(self) -> Derived:
        entries = event_log.read(self.events_path)
        count = event_log.base_count(entries)
        return derive(self._legacy_ui_or_empty(count), entries)

    def _legacy_ui_or_empty(self, count: int) -> list[UiMessage]:
        """The first `count` messages of the saved UI log (-1: all of them); none when it is
        missing or unreadable (the log of what was shown is a convenience)."""
        if count == 0:
            return []
        try:
            messages = self._legacy_ui()
        except StorageError:
            return []
        return messages if count < 0 else messages[:count]

    def _legacy_ui(self) -> list[UiMessage]:
        raw = self._replayed().ui
        try:
            return [
                UiMessage.from_json(m)
                for m in (raw if raw is not None else self._load_list(UI_MESSAGES))
            ]
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise StorageError(f"{self.path / UI_MESSAGES} is corrupt: {exc!r}") from exc

    def load_record(self) -> TaskRecord:
        journaled = self._replayed().record
        data = {"record": journaled} if journaled is not None else self._load(METADATA)
        if not isinstance(data, dict) or not isinstance(data.get("record"), dict):
            raise StorageError(f"{self.path / METADATA} has no task record.")
        try:
            record = TaskRecord.from_json(data["record"])
        except TypeError as exc:
            raise StorageError(f"{self.path / METADATA} is not a valid task record: {exc}") from exc
        if not _well_typed(record):
            raise StorageError(f"{self.path / METADATA} is not a valid task record.")
        return record

    def disk_size(self) -> int:
        total = 0
        for entry in os.scandir(self.path):
            try:
                if entry.is_file(follow_symlinks=False):
                    total += entry.stat(follow_symlinks=False).st_size
            except FileNotFoundError:  # a temp file renamed away by a concurrent atomic write
                continue
        return total

    def _load(self, name: str) -> Any:
        file = self.path / name
        try:
            return json.loads(file.read_text(encoding="utf-8"))
        except FileNotFoundError as exc:
            raise StorageError(f"{file} is missing.") from exc
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise StorageError(f"{file} is corrupt: {exc}") from exc

    def _load_list(self, name: str) -> list[dict[str, Any]]:
        data = self._load(name)
        if not isinstance(data, list) or not all(isinstance(m, dict) for m in data):
            raise StorageError(f"{self.path / name} is not a list of messages.")
        return data


def _write_json(path: Path, data: Any) -> int:
    atomic_write_json(path, data)
    return path.stat().st_size


def _well_typed(r: TaskRecord) -> bool:
    numbers = (r.tokens_in, r.tokens_out, r.cache_writes, r.cache_reads, r.total_cost, r.size, r.ts)
    return (
        all(isinstance(v, str) for v in (r.id, r.task, r.workspace, r.provider, r.model, r.status))
        and all(isinstance(v, int | float) and not isinstance(v, bool) for v in numbers)
        and isinstance(r.favorite, bool)
    )


class TaskStore:
    """All tasks under `home/tasks`, plus the history index."""

    def __init__(self, home: Path) -> None:
        self.home = home
        self.tasks_dir = home / "tasks"
        self._index: HistoryIndex | None = None

    @property
    def index(self) -> HistoryIndex:
        if self._index is None:
            self._index = HistoryIndex(self.home / "history.sqlite")
            if self._index.recreated and self.tasks_dir.is_dir():
                self.sync()
        return self._index

    def sync(self) -> list[Problem]:
        """Bring the index in line with the task folders; returns the folders that cannot be read.

        Cheap when nothing is missing (one directory listing, one query), so every history view
        runs it: a task whose index write was lost (killed process, damaged database) reappears.
        """
        return sync_index(self.index, self.tasks_dir, lambda path: TaskFolder(path).load_record())

    def create(self) -> TaskFolder:
        self.tasks_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        stamp = int(time.time() * 1000)
        # Ids are millisecond timestamps, as in Cline; mkdir without exist_ok makes them unique
        # even when several pycline processes start in the same millisecond.
        while True:
            path = self.tasks_dir / str(stamp)
            try:
                path.mkdir(mode=0o700)
            except FileExistsError:
                stamp += 1
                continue
            folder = TaskFolder(path, self.index)
            atomic_write_json(path / CONTEXT_HISTORY, [])
            return folder

    def open(self, task_id: str) -> TaskFolder:
        if not _valid_id(task_id):
            raise StorageError(f"No task with id {task_id!r}.")
        path = self.tasks_dir / task_id
        if not path.is_dir():
            raise StorageError(f"No task with id {task_id!r}.")
        return TaskFolder(path, self.index)

    def latest(self, workspace: str) -> str | None:
        """The id of the most recent task in `workspace`, if any."""
        self.sync()
        found = self.index.list(workspace=workspace, limit=1)
        return found[0].id if found else None

    def delete(self, task_id: str) -> None:
        """Remove a task's folder and its index row."""
        folder = self.open(task_id)
        # Renamed first (atomic), so a kill during the removal never leaves a half-deleted task
        # that looks real; `sync` finishes such leftovers.
        trash = self.tasks_dir / f"{TRASH_PREFIX}{task_id}"
        os.replace(folder.path, trash)
        self.index.delete(task_id)
        shutil.rmtree(trash, ignore_errors=True)


def _valid_id(task_id: str) -> bool:
    return bool(task_id) and "/" not in task_id and "\\" not in task_id and task_id[0] != "."
