"""The history index as a cache of the task folders: rebuilt, repaired, never fatal."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from pycline.errors import StorageError
from pycline.messages import Message
from pycline.storage.records import TaskRecord
from pycline.storage.task_store import TRASH_PREFIX, TaskStore


def _task(store: TaskStore, text: str, *, ts: float, workspace: str = "/w") -> str:
    folder = store.create()
    folder.save_api_history([Message.user(f"<task>\n{text}\n</task>")])
    folder.save_record(TaskRecord(id=folder.id, ts=ts, task=text, workspace=workspace))
    return folder.id


def test_deleted_index_is_rebuilt_from_the_task_folders(tmp_path: Path) -> None:
    store = TaskStore(tmp_path)
    ids = [_task(store, f"task {i}", ts=float(i)) for i in range(3)]
    store.index.set_favorite(ids[1], True)
    store.open(ids[1]).set_favorite(True)
    (tmp_path / "history.sqlite").unlink()
    for suffix in ("-wal", "-shm"):
        Path(f"{tmp_path / 'history.sqlite'}{suffix}").unlink(missing_ok=True)

    records = TaskStore(tmp_path).index.list()
    assert [r.id for r in records] == ids[::-1]
    assert [r.favorite for r in records] == [False, True, False]


def test_corrupt_index_is_set_aside_and_rebuilt(tmp_path: Path) -> None:
    store = TaskStore(tmp_path)
    first = _task(store, "kept", ts=1.0)
    db = tmp_path / "history.sqlite"
    for suffix in ("-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    db.write_bytes(b"this is not a database at all" * 100)

    records = TaskStore(tmp_path).index.list()
    assert [r.task for r in records] == ["kept"]
    assert records[0].id == first
    assert any(p.name.startswith("history.sqlite.corrupt-") for p in tmp_path.iterdir())


def test_index_with_a_foreign_schema_is_replaced(tmp_path: Path) -> None:
    db = tmp_path / "history.sqlite"
    with sqlite3.connect(db) as conn:
        conn.execute("CREATE TABLE tasks (id TEXT PRIMARY KEY)")
    conn.close()
    store = TaskStore(tmp_path)
    _task(store, "new", ts=1.0)
    assert [r.task for r in TaskStore(tmp_path).index.list()] == ["new"]


def test_corrupt_task_metadata_is_reported_and_the_rest_loads(tmp_path: Path) -> None:
    store = TaskStore(tmp_path)
    good = _task(store, "good", ts=2.0)
    bad = _task(store, "bad", ts=1.0)
    half = _task(store, "half", ts=3.0)
    (tmp_path / "history.sqlite").unlink()
    (store.tasks_dir / bad / "task_metadata.json").write_text("{not json", encoding="utf-8")
    # Half a file, as a non-atomic writer killed mid-write would leave it.
    meta = store.tasks_dir / half / "task_metadata.json"
    meta.write_bytes(meta.read_bytes()[:25])

    fresh = TaskStore(tmp_path)
    problems = fresh.sync()
    assert sorted(p.task_id for p in problems) == sorted([bad, half])
    assert all("corrupt" in p.message for p in problems)
    assert [r.id for r in fresh.index.list()] == [good]


def test_wrongly_typed_metadata_is_corrupt(tmp_path: Path) -> None:
    store = TaskStore(tmp_path)
    task_id = _task(store, "x", ts=1.0)
    meta = store.tasks_dir / task_id / "task_metadata.json"
    data = json.loads(meta.read_text(encoding="utf-8"))
    data["record"]["tokens_in"] = "many"
    meta.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(StorageError, match="not a valid task record"):
        store.open(task_id).load_record()


def test_sync_adds_a_task_whose_index_write_was_lost(tmp_path: Path) -> None:
    store = TaskStore(tmp_path)
    task_id = _task(store, "lost row", ts=5.0)
    store.index.delete(task_id)  # as if killed between the metadata write and the index write
    assert store.index.list() == []
    assert store.sync() == []
    assert [r.id for r in store.index.list()] == [task_id]


def test_sync_drops_rows_of_vanished_folders_and_finishes_deletions(tmp_path: Path) -> None:
    store = TaskStore(tmp_path)
    gone = _task(store, "gone", ts=1.0)
    kept = _task(store, "kept", ts=2.0)
    (store.tasks_dir / gone).rename(store.tasks_dir / f"{TRASH_PREFIX}{gone}")
    assert store.sync() == []
    assert [r.id for r in store.index.list()] == [kept]
    assert not (store.tasks_dir / f"{TRASH_PREFIX}{gone}").exists()


def test_just_created_empty_folder_is_not_a_problem(tmp_path: Path) -> None:
    store = TaskStore(tmp_path)
    store.create()  # another process between create() and its first save
    assert store.sync() == []


def test_favorite_survives_saves_of_a_running_task(tmp_path: Path) -> None:
    store = TaskStore(tmp_path)
    folder = store.create()
    record = TaskRecord(id=folder.id, ts=1.0, task="t", workspace="/w")
    folder.save_record(record)
    # The user stars the task from another process while it runs...
    TaskStore(tmp_path).open(folder.id).set_favorite(True)
    # ...and the running task saves its (unstarred) in-memory record.
    record.tokens_in = 10
    folder.save_record(record)
    assert record.favorite is True
    assert store.open(folder.id).load_record().favorite is True
    row = store.index.get(folder.id)
    assert row is not None and row.favorite and row.tokens_in == 10


def test_delete_removes_folder_and_row(tmp_path: Path) -> None:
    store = TaskStore(tmp_path)
    task_id = _task(store, "bye", ts=1.0)
    store.delete(task_id)
    assert not (store.tasks_dir / task_id).exists()
    assert store.index.get(task_id) is None
    assert list(store.tasks_dir.iterdir()) == []


def test_latest_is_per_workspace(tmp_path: Path) -> None:
    store = TaskStore(tmp_path)
    a = _task(store, "a", ts=1.0, workspace="/a")
    _task(store, "b", ts=2.0, workspace="/b")
    assert store.latest("/a") == a
    assert store.latest("/c") is None
