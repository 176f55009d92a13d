"""Per-task folders (SPEC §9): the files Cline keeps, each written atomically."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pycline.errors import StorageError
from pycline.messages import Message, UiMessage
from pycline.storage.atomic import atomic_write_json
from pycline.storage.history import HistoryIndex
from pycline.storage.records import TaskRecord

API_HISTORY = "api_conversation_history.json"
UI_MESSAGES = "ui_messages.json"
CONTEXT_HISTORY = "context_history.json"
METADATA = "task_metadata.json"


class TaskFolder:
    """One task's folder. Writes go to the folder and the history index."""

    def __init__(self, path: Path, index: HistoryIndex | None = None) -> None:
        self.path = path
        self.index = index

    @property
    def id(self) -> str:
        return self.path.name

    def save_api_history(self, messages: Sequence[Message]) -> None:
        atomic_write_json(self.path / API_HISTORY, [m.to_json() for m in messages])

    def save_ui_messages(self, messages: Sequence[UiMessage]) -> None:
        atomic_write_json(self.path / UI_MESSAGES, [m.to_json() for m in messages])

    def save_record(self, record: TaskRecord) -> None:
        record.size = self.disk_size()
        atomic_write_json(self.path / METADATA, {"record": record.to_json()})
        if self.index is not None:
            self.index.upsert(record)

    def save_context(self, state: dict[str, Any]) -> None:
        atomic_write_json(self.path / CONTEXT_HISTORY, state)

    def load_context(self) -> object:
        """The saved context-window state; None when there is none or it cannot be read."""
        try:
            return self._load(CONTEXT_HISTORY)
        except StorageError:
            return None

    def load_api_history(self) -> list[Message]:
        return [Message.from_json(m) for m in self._load_list(API_HISTORY)]

    def load_ui_messages(self) -> list[UiMessage]:
        return [UiMessage.from_json(m) for m in self._load_list(UI_MESSAGES)]

    def load_record(self) -> TaskRecord:
        data = self._load(METADATA)
        if not isinstance(data, dict) or not isinstance(data.get("record"), dict):
            raise StorageError(f"{self.path / METADATA} has no task record.")
        try:
            return TaskRecord.from_json(data["record"])
        except TypeError as exc:
            raise StorageError(f"{self.path / METADATA} is not a valid task record: {exc}") from exc

    def disk_size(self) -> int:
        total = 0
        for entry in os.scandir(self.path):
            if entry.is_file(follow_symlinks=False):
                total += entry.stat().st_size
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
        try:
            return data
        except (KeyError, ValueError) as exc:
            raise StorageError(f"{self.path / name} is corrupt: {exc}") from exc


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
        return self._index

    def create(self) -> TaskFolder:
        self.tasks_dir.mkdir(parents=True, exist_ok=True)
        stamp = int(time.time() * 1000)
        # Ids are millisecond timestamps, as in Cline; mkdir without exist_ok makes them unique
        # even when several pycline processes start in the same millisecond.
        while True:
            path = self.tasks_dir / str(stamp)
            try:
                path.mkdir()
            except FileExistsError:
                stamp += 1
                continue
            folder = TaskFolder(path, self.index)
            atomic_write_json(path / CONTEXT_HISTORY, [])
            return folder

    def open(self, task_id: str) -> TaskFolder:
        if not task_id or "/" in task_id or task_id in (".", ".."):
            raise StorageError(f"No task with id {task_id!r}.")
        path = self.tasks_dir / task_id
        if not path.is_dir():
            raise StorageError(f"No task with id {task_id!r}.")
        return TaskFolder(path, self.index)
