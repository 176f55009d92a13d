"""Keep the history index true to the task folders, which are the source of truth.

A process killed between writing a task's metadata and its index row, a damaged or deleted
`history.sqlite`, a task folder copied in by hand: `sync_index` repairs all of these, and reports
folders whose metadata cannot be read instead of failing the whole history.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from pycline.errors import StorageError
from pycline.storage.history import HistoryIndex
from pycline.storage.layout import API_HISTORY, METADATA, TRASH_PREFIX
from pycline.storage.records import TaskRecord


@dataclass(frozen=True, slots=True)
class Problem:
    """A task folder that could not be read: shown to the user, never fatal for the rest."""

    task_id: str
    message: str


def sync_index(
    index: HistoryIndex, tasks_dir: Path, load_record: Callable[[Path], TaskRecord]
) -> list[Problem]:
    """Bring `index` in line with the folders in `tasks_dir` (`load_record` reads one)."""
    try:
        # Read the index before listing folders: a task is given its folder before its row, so a
        # row missing a folder here can only mean the folder was deleted.
        known = index.ids()
    except StorageError:
        index.reset()
        known = set()
    folders = _task_folders(tasks_dir, TRASH_PREFIX)
    problems: list[Problem] = []
    for task_id in sorted(set(folders) - known):
        path = folders[task_id]
        if not (path / METADATA).exists() and not (path / API_HISTORY).exists():
            continue  # just created by another process, or killed before it held anything
        try:
            record = load_record(path)
        except StorageError as exc:
            problems.append(Problem(task_id, str(exc)))
            continue
        record.id = task_id  # the folder name is the id, even for a folder copied by hand
        index.restore(record)
    for task_id in known - set(folders):
        index.delete(task_id)
    index.recreated = False
    return problems


def _task_folders(tasks_dir: Path, trash_prefix: str) -> dict[str, Path]:
    folders: dict[str, Path] = {}
    try:
        entries = list(os.scandir(tasks_dir))
    except FileNotFoundError:
        return folders
    for entry in entries:
        if not entry.is_dir(follow_symlinks=False):
            continue
        if entry.name.startswith(trash_prefix):
            # A deletion interrupted after its rename: finish it.
            shutil.rmtree(entry.path, ignore_errors=True)
        elif not entry.name.startswith("."):
            folders[entry.name] = Path(entry.path)
    return folders
