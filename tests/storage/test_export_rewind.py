"""Reading a saved task (Markdown export, summary) and cutting it back to a checkpoint."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pycline.errors import StorageError
from pycline.messages import ImageContent, Message, TextContent, UiMessage
from pycline.storage.export import export_file_name, export_markdown, transcript_summary
from pycline.storage.records import TaskRecord
from pycline.storage.rewind import rewind, rewind_before
from pycline.storage.task_store import TaskStore


def test_export_has_user_and_assistant_sections_in_order() -> None:
    messages = [
        Message.user("<task>\nfix it\n</task>"),
        Message.assistant("Looking.\n<read_file>\n<path>a.py</path>\n</read_file>"),
        Message("user", (TextContent("[read_file for 'a.py'] Result:"), ImageContent("a", "b"))),
    ]
    text = export_markdown(messages)
    assert text == (
        "**User:**\n\n<task>\nfix it\n</task>\n\n"
        "---\n\n"
        "**Assistant:**\n\nLooking.\n<read_file>\n<path>a.py</path>\n</read_file>\n\n"
        "---\n\n"
        "**User:**\n\n[read_file for 'a.py'] Result:\n[Image]\n\n"
    )


def test_export_file_name_reads_like_a_date() -> None:
    name = export_file_name(0)
    assert name.startswith("pycline_task_") and name.endswith(("am.md", "pm.md"))


def test_summary_lists_what_happened_in_a_task_saved_before_the_event_log(
    tmp_path: Path,
) -> None:
    ui = [
        UiMessage(1.0, "say", "task", "make it"),
        UiMessage(2.0, "say", "api_req_started", "{}"),
        UiMessage(3.0, "say", "tool", json.dumps({"tool": "x", "summary": "write_to_file a"})),
        UiMessage(4.0, "say", "tool_result", "boom", extra={"ok": False}),
        UiMessage(5.0, "say", "checkpoint_created", extra={"lastCheckpointHash": "abcdef123"}),
        UiMessage(6.0, "say", "completion_result", "all done"),
    ]
    folder = TaskStore(tmp_path).create()
    folder.save_ui_messages(ui)
    lines = [line.split("  ", 1)[1] for line in transcript_summary(folder.load_events())]
    assert lines == [
        "Task: make it",
        "Tool: write_to_file a",
        "  failed: boom",
        "Checkpoint abcdef12",
        "Completed: all done",
    ]


def _usage(tokens_in: int, cost: float) -> UiMessage:
    return UiMessage(
        0.0,
        "say",
        "api_req_started",
        json.dumps(
            {"tokensIn": tokens_in, "tokensOut": 1, "cacheWrites": 0, "cacheReads": 0, "cost": cost}
        ),
    )


def test_rewind_cuts_history_and_keeps_the_cost_record(tmp_path: Path) -> None:
    folder = TaskStore(tmp_path).create()
    api = [
        Message.user("<task>t</task>"),
        Message.assistant("<write_to_file>…</write_to_file>"),
        Message.user("[write_to_file] Result: ok"),
        Message.assistant("<execute_command>…</execute_command>"),
        Message.user("[execute_command] Result: ok"),
    ]
    ui = [
        UiMessage(1.0, "say", "task", "t"),
        _usage(100, 0.5),
        UiMessage(2.0, "say", "tool", "{}"),
        UiMessage(
            3.0,
            "say",
            "checkpoint_created",
            extra={"lastCheckpointHash": "c1", "conversationHistoryIndex": 1},
        ),
        _usage(200, 0.25),
        UiMessage(4.0, "say", "tool", "{}"),
        UiMessage(
            5.0,
            "say",
            "checkpoint_created",
            extra={"lastCheckpointHash": "c2", "conversationHistoryIndex": 3},
        ),
    ]
    folder.save_api_history(api)
    folder.save_ui_messages(ui)
    folder.save_record(
        TaskRecord(
            id=folder.id,
            ts=1.0,
            task="t",
            workspace="/w",
            tokens_in=300,
            total_cost=0.75,
            status="completed",
        )
    )

    done = rewind(folder, "c1")

    assert done.api_messages_removed == 2 and done.ui_messages_removed == 3
    assert folder.load_api_history() == api[:3]  # the turn's tool result stays with it
    kept = folder.load_ui_messages()
    assert [m.kind for m in kept] == [m.kind for m in ui[:4]] + ["deleted_api_reqs"]
    assert json.loads(kept[-1].text) == {
        "tokensIn": 200,
        "tokensOut": 1,
        "cacheWrites": 0,
        "cacheReads": 0,
        "cost": 0.25,
    }
    record = folder.load_record()
    assert record.tokens_in == 300 and record.total_cost == 0.75
    assert record.status == "restored"


def test_rewind_to_an_unknown_checkpoint_changes_nothing(tmp_path: Path) -> None:
    folder = TaskStore(tmp_path).create()
    folder.save_api_history([Message.user("x")])
    folder.save_ui_messages([UiMessage(1.0, "say", "task", "x")])
    folder.save_record(TaskRecord(id=folder.id, ts=1.0, task="x", workspace="/w"))
    with pytest.raises(StorageError, match="no place in the conversation"):
        rewind(folder, "deadbeef")
    assert folder.load_api_history() == [Message.user("x")]


def test_rewind_refuses_when_history_was_condensed_since(tmp_path: Path) -> None:
    folder = TaskStore(tmp_path).create()
    folder.save_api_history([Message.user("summary of everything", ts=50.0)])
    folder.save_ui_messages(
        [
            UiMessage(1.0, "say", "task", "t"),
            UiMessage(
                2.0,
                "say",
                "checkpoint_created",
                extra={
                    "lastCheckpointHash": "c1",
                    "conversationHistoryIndex": 0,
                    "conversationHistoryTs": 10.0,
                },
            ),
        ]
    )
    folder.save_record(TaskRecord(id=folder.id, ts=1.0, task="t", workspace="/w"))
    with pytest.raises(StorageError, match="condensed"):
        rewind(folder, "c1")
    assert folder.load_api_history() == [Message.user("summary of everything", ts=50.0)]


def test_rewind_before_a_message_keeps_what_was_said_before_it(tmp_path: Path) -> None:
    folder = TaskStore(tmp_path).create()
    api = [
        Message.user("<task>t</task>", ts=1.0),
        Message.assistant("<attempt_completion>…</attempt_completion>", ts=2.0),
        Message.user("[attempt_completion] Result: make it blue", ts=3.5),
        Message.assistant("<attempt_completion>…</attempt_completion>", ts=4.0),
    ]
    ui = [
        UiMessage(1.0, "say", "task", "t"),
        _usage(100, 0.5),
        UiMessage(2.0, "say", "completion_result", "First."),
        UiMessage(3.0, "say", "user_feedback", "make it blue"),
        _usage(50, 0.25),
        UiMessage(4.0, "say", "completion_result", "Second."),
    ]
    folder.save_api_history(api)
    folder.save_ui_messages(ui)
    folder.save_record(TaskRecord(id=folder.id, ts=1.0, task="t", workspace="/w"))

    done = rewind_before(folder, 3)

    assert done.api_messages_removed == 2 and done.ui_messages_removed == 3
    assert folder.load_api_history() == api[:2]
    kept = folder.load_ui_messages()
    assert [m.kind for m in kept] == [m.kind for m in ui[:3]] + ["deleted_api_reqs"]
    with pytest.raises(StorageError):
        rewind_before(folder, 0)  # the task itself is not a message to go back before
