"""The task journal: appends only, survives a torn last line, folds into Cline's files."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

from pycline.messages import Message, UiMessage
from pycline.storage.journal import JOURNAL, TaskRecorder
from pycline.storage.records import TaskRecord
from pycline.storage.task_store import API_HISTORY, UI_MESSAGES, TaskStore


def _ui(text: str) -> UiMessage:
    return UiMessage(ts=1.0, type="say", kind="text", text=text)


async def test_each_change_appends_only_what_is_new(isolated_home: Path) -> None:
    folder = TaskStore(isolated_home).create()
    recorder = TaskRecorder(folder, background=True)
    history: list[Message] = []
    sizes = []
    for i in range(30):
        history.append(Message.assistant(f"reply {i:03d}", ts=1.0))
        recorder.history_changed(history)
        await recorder.flush()
        sizes.append((folder.path / JOURNAL).stat().st_size)
    growth = {b - a for a, b in itertools.pairwise(sizes)}
    # The same bytes per message however long the history (give or take the index's digits).
    assert max(growth) - min(growth) <= 1
    assert [m.text for m in folder.load_api_history()] == [m.text for m in history]
    assert not (folder.path / API_HISTORY).exists()
    await recorder.close()
    assert not (folder.path / JOURNAL).exists()
    saved = json.loads((folder.path / API_HISTORY).read_text(encoding="utf-8"))
    assert len(saved) == 30


async def test_a_torn_last_line_is_ignored(isolated_home: Path) -> None:
    folder = TaskStore(isolated_home).create()
    recorder = TaskRecorder(folder)
    history = [Message.assistant("one", ts=1.0), Message.assistant("two", ts=1.0)]
    recorder.history_changed(history)
    with (folder.path / JOURNAL).open("ab") as fh:
        fh.write(b'{"k":"api","i":2,"m":{"role":"assis')  # the kill landed mid-write
    assert [m.text for m in folder.load_api_history()] == ["one", "two"]


async def test_replaying_a_journal_already_folded_in_changes_nothing(isolated_home: Path) -> None:
    folder = TaskStore(isolated_home).create()
    recorder = TaskRecorder(folder)
    ui = [_ui("a"), _ui("b")]
    history = [Message.assistant("one", ts=1.0)]
    recorder.history_changed(history)
    # UI lines as an earlier pycline journaled them (its journal may still be in a folder).
    ui_lines = [{"k": "ui", "i": i, "m": m.to_json()} for i, m in enumerate(ui)]
    ui[0].extra["lastCheckpointHash"] = "abc"
    ui_lines.append({"k": "ui~", "i": 0, "m": ui[0].to_json()})
    with (folder.path / JOURNAL).open("a", encoding="utf-8") as fh:
        fh.writelines(json.dumps(line) + "\n" for line in ui_lines)
    journal = (folder.path / JOURNAL).read_bytes()
    folder.fold_journal()
    # A kill between writing the files and removing the journal: the journal is still there.
    (folder.path / JOURNAL).write_bytes(journal)
    assert [m.text for m in folder.load_api_history()] == ["one"]
    loaded = folder.load_ui_messages()
    assert [m.text for m in loaded] == ["a", "b"] and loaded[0].extra["lastCheckpointHash"] == "abc"
    assert len(json.loads((folder.path / UI_MESSAGES).read_text(encoding="utf-8"))) == 2


async def test_a_replaced_history_is_written_whole_once(isolated_home: Path) -> None:
    folder = TaskStore(isolated_home).create()
    recorder = TaskRecorder(folder)
    history = [Message.assistant(str(i), ts=1.0) for i in range(5)]
    recorder.history_changed(history)
    history[:] = [Message.assistant("summary", ts=1.0)]  # condensed
    recorder.history_changed(history)
    history.append(Message.assistant("after", ts=1.0))
    recorder.history_changed(history)
    assert [m.text for m in folder.load_api_history()] == ["summary", "after"]


async def test_the_record_goes_to_the_journal_and_the_index(isolated_home: Path) -> None:
    store = TaskStore(isolated_home)
    folder = store.create()
    recorder = TaskRecorder(folder, background=True)
    record = TaskRecord(id=folder.id, ts=2.0, task="t", workspace="/w", status="running")
    recorder.record_changed(record)
    await recorder.flush()
    assert folder.load_record().status == "running"
    assert store.index.get(folder.id) is not None
    await recorder.close()


async def test_a_record_told_again_unchanged_writes_nothing_new(isolated_home: Path) -> None:
    # Each question tells the recorder the record before it is shown: an approval after an
    # approval, with nothing spent between, adds no line.
    folder = TaskStore(isolated_home).create()
    recorder = TaskRecorder(folder, background=True)
    record = TaskRecord(id=folder.id, ts=2.0, task="t", workspace="/w", status="running")
    recorder.record_changed(record)
    await recorder.flush()
    written = recorder.bytes_written
    recorder.record_changed(record)
    recorder.record_changed(record)
    await recorder.flush()
    assert recorder.bytes_written == written
    record.tokens_in = 10
    recorder.record_changed(record)
    await recorder.flush()
    assert recorder.bytes_written > written
    assert folder.load_record().tokens_in == 10
    await recorder.close()


async def test_a_writer_after_a_line_torn_at_any_byte_keeps_every_later_record(
    isolated_home: Path,
) -> None:
    """A kill can stop a record's write after any byte: whatever was left, a resumed task that
    loads the folder and writes on keeps all it writes (and the torn record, when whole)."""
    store = TaskStore(isolated_home)
    probe = store.create()
    written = [Message.assistant("one", ts=1.0), Message.assistant("two", ts=1.0)]
    TaskRecorder(probe).history_changed(written)
    TaskRecorder(probe).history_changed([*written, Message.assistant("three: é ✓", ts=1.0)])
    record = (probe.path / JOURNAL).read_bytes().splitlines(keepends=True)[-1]
    for cut in range(len(record) + 1):
        folder = store.create()
        TaskRecorder(folder).history_changed(written)
        with (folder.path / JOURNAL).open("ab") as fh:
            fh.write(record[:cut])
        loaded = folder.load_api_history()  # what `pycline resume` starts from
        assert [m.text for m in loaded][:2] == ["one", "two"]
        resumed = TaskRecorder(folder)
        resumed.start_from(loaded)
        history = [*loaded, Message.assistant("four", ts=1.0)]
        resumed.history_changed(history)
        history = [*history, Message.assistant("five", ts=1.0)]
        resumed.history_changed(history)
        expected = [m.text for m in history]
        assert [m.text for m in folder.load_api_history()] == expected, cut
        await resumed.close()  # folds the journal into Cline's files
        assert [m.text for m in store.open(folder.id).load_api_history()] == expected, cut
