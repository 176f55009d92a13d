"""Task folders and the history index on real disk."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from pycline.errors import StorageError
from pycline.messages import Message, UiMessage
from pycline.storage.records import TaskRecord
from pycline.storage.task_store import TaskStore


def test_task_files_round_trip(tmp_path: Path) -> None:
    store = TaskStore(tmp_path)
    folder = store.create()
    history = [Message.user("<task>\nhi\n</task>", ts=1.0), Message.assistant("hello", ts=2.0)]
    folder.save_api_history(history)
    folder.save_ui_messages([UiMessage(ts=1.0, type="say", kind="task", text="hi")])
    folder.save_record(TaskRecord(id=folder.id, ts=3.0, task="hi", workspace="/w", tokens_in=5))
    assert folder.load_api_history() == history
    assert folder.load_ui_messages()[0].to_json() == {
        "ts": 1.0,
        "type": "say",
        "say": "task",
        "text": "hi",
    }
    assert folder.load_record().tokens_in == 5
    assert (folder.path / "context_history.json").exists()
    # Cline's on-disk shape: Anthropic content blocks.
    raw = json.loads((folder.path / "api_conversation_history.json").read_text(encoding="utf-8"))
    assert raw[1]["content"] == [{"type": "text", "text": "hello"}]


def test_corrupt_file_is_reported_not_crashing(tmp_path: Path) -> None:
    store = TaskStore(tmp_path)
    folder = store.create()
    (folder.path / "api_conversation_history.json").write_text('[{"role": "us', encoding="utf-8")
    with pytest.raises(StorageError, match="corrupt"):
        folder.load_api_history()


def test_writes_leave_no_temp_files(tmp_path: Path) -> None:
    folder = TaskStore(tmp_path).create()
    for i in range(5):
        folder.save_api_history([Message.user(str(i))])
    assert sorted(p.name for p in folder.path.iterdir()) == [
        "api_conversation_history.json",
        "context_history.json",
    ]


def test_unknown_task_id_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(StorageError):
        TaskStore(tmp_path).open("../etc")


_WRITER = """
import sys
from pathlib import Path
from pycline.storage.records import TaskRecord
from pycline.storage.task_store import TaskStore
store = TaskStore(Path(sys.argv[1]))
start = int(sys.argv[2])
for i in range(start, start + 20):
    store.index.upsert(TaskRecord(id=str(i), ts=float(i), task=f"task {i}", workspace="/w"))
"""


def test_history_index_survives_concurrent_writers(tmp_path: Path) -> None:
    procs = [
        subprocess.Popen([sys.executable, "-c", _WRITER, str(tmp_path), str(n * 100)])
        for n in range(3)
    ]
    for p in procs:
        assert p.wait(60) == 0
    records = TaskStore(tmp_path).index.list(limit=1000)
    assert len(records) == 60
    assert records[0].id == "219"  # newest first


def test_history_search_escapes_wildcards(tmp_path: Path) -> None:
    store = TaskStore(tmp_path)
    store.index.upsert(TaskRecord(id="1", ts=1, task="fix 100% of bugs", workspace="/w"))
    store.index.upsert(TaskRecord(id="2", ts=2, task="fix 1000 bugs", workspace="/w"))
    assert [r.id for r in store.index.list(search="100%")] == ["1"]
