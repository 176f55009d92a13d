"""Questions carry Cline's buttons; answers from the page are checked against the question."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jsonschema
import pytest

from pycline import event_wire
from pycline.event_wire import WireError
from pycline.events import (
    ApprovalQuestion,
    CompletionQuestion,
    Envelope,
    ErrorRetryQuestion,
    FollowupQuestion,
    MistakeLimitQuestion,
    Option,
    QuestionAsked,
)
from pycline.messages import UiMessage
from pycline.storage.task_store import TaskStore
from pycline.web.transcript import saved_events
from pycline.web.wire import NewTask, Resend, event_json, page_request


@pytest.mark.parametrize(
    ("question", "labels"),
    [
        (ApprovalQuestion("write_to_file", "w"), ["Save", "Reject"]),
        (ApprovalQuestion("replace_in_file", "r"), ["Save", "Reject"]),
        (ApprovalQuestion("execute_command", "c"), ["Run Command", "Reject"]),
        (ApprovalQuestion("use_mcp_tool", "m"), ["Approve", "Reject"]),
        (ErrorRetryQuestion("boom"), ["Retry", "Start New Task"]),
        (MistakeLimitQuestion(3), ["Proceed Anyways", "Start New Task"]),
        (CompletionQuestion("done"), ["Start New Task"]),
        (
            FollowupQuestion("which?", (Option("red", "Red"), Option("blue", "Blue"))),
            ["Red", "Blue"],
        ),
    ],
)
def test_each_question_offers_clines_button_labels(question, labels):
    data = event_json(Envelope("t1", 1, 0.0, QuestionAsked("t1-q1", question)))
    assert [o["label"] for o in data["question"]["options"]] == labels


@pytest.mark.parametrize(
    "data",
    [
        {"v": 1, "kind": "new_task", "text": 3},
        {"v": 1, "kind": "new_task", "text": "x", "mode": "both"},
        {"v": 1, "kind": "new_task", "text": "x", "images": "data:"},
        {"v": 2, "kind": "resume_task", "task_id": "t"},
        {
            "v": 1,
            "kind": "resend",
            "task_id": "t",
            "ts": "now",
            "original": "a",
            "text": "b",
            "restore": "task",
        },
        {
            "v": 1,
            "kind": "resend",
            "task_id": "t",
            "ts": 1.0,
            "original": "a",
            "text": "b",
            "restore": "files",
        },
        {"v": 1, "kind": "follow_background", "bg_id": "b"},
    ],
)
def test_malformed_page_requests_are_refused(data):
    with pytest.raises(WireError):
        page_request(data)


def test_a_page_request_is_read_with_its_defaults():
    assert page_request({"v": 1, "kind": "new_task", "text": "hi", "request": 3}) == NewTask("hi")
    resend = {"v": 1, "kind": "resend", "task_id": "t", "ts": 2, "original": "a", "text": "b"}
    assert page_request({**resend, "restore": "both"}) == Resend("t", 2.0, "a", "b", "both")


def _saved(tmp_path: Path, messages: list[UiMessage]) -> list[dict[str, Any]]:
    """A task saved by an earlier pycline (its UI log only), as the page gets it."""
    folder = TaskStore(tmp_path).create()
    folder.save_ui_messages(messages)
    return saved_events(folder.load_events())


def test_a_task_saved_before_the_event_log_becomes_schema_valid_wire_events(tmp_path):
    messages = [
        UiMessage(1.0, "say", "task", "do it"),
        UiMessage(2.0, "say", "text", "hello"),
        UiMessage(3.0, "say", "tool", '{"tool": "read_file", "summary": "read_file a.py"}'),
        UiMessage(4.0, "say", "tool_result", "contents", extra={"tool": "read_file", "ok": True}),
        UiMessage(5.0, "say", "checkpoint_created", extra={"lastCheckpointHash": "abc"}),
        UiMessage(6.0, "say", "tool", "not json"),
        UiMessage(7.0, "ask", "unknown_kind", "ignored"),
    ]
    events = _saved(tmp_path, messages)
    kinds = [
        (e["kind"], e.get("task") or e.get("text") or e.get("tool") or e.get("commit"))
        for e in events
    ]
    assert kinds == [
        ("task_started", "do it"),
        ("text_done", "hello"),
        ("tool_started", "read_file"),
        ("tool_finished", "read_file"),
        ("checkpoint_created", "abc"),
        ("tool_started", None),  # unreadable: shown as an unnamed tool, not a crash
    ]
    schema = event_wire.json_schema()
    for event in events:
        jsonschema.validate({**event, "seq": 1}, schema)


def test_a_saved_tool_result_shows_only_its_raster_data_url_images(tmp_path):
    png = "data:image/png;base64,iVBORw0KGgo="
    saved = [png, "data:image/svg+xml;base64,PHN2Zz4=", "javascript:alert(1)", 7, png + "<"]
    messages = [
        UiMessage(
            0.0, "say", "tool_result", "ok", extra={"tool": "browser_action", "images": saved}
        ),
        UiMessage(0.0, "say", "tool_result", "ok", extra={"tool": "read_file", "images": "x"}),
    ]
    shot, plain = _saved(tmp_path, messages)
    assert shot["images"] == [png]
    assert plain["images"] == []
