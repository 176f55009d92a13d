"""A checkpoint is made while the next reply streams, so its event can reach the page after the
next turn's first rows: the page places it by the tool call it names, and draws no row twice."""

from __future__ import annotations

import json
from typing import Any

from playwright.sync_api import expect

from pycline.events import (
    CheckpointCreated,
    Envelope,
    Event,
    RequestStarted,
    TaskStarted,
    TextDelta,
    TextDone,
    ToolFinished,
    ToolPartial,
    ToolStarted,
)
from pycline.messages import UiMessage
from pycline.web.transcript import saved_events
from pycline.web.wire import event_json

TASK = "late-checkpoint-task"
START, FIRST = "a" * 40, "b" * 40


def _events() -> list[dict[str, Any]]:
    path = {"path": "a.txt", "content": "new a\n"}
    late: list[Event] = [
        TaskStarted(TASK, "Write a.txt, then edit it", "/w"),
        RequestStarted(1),
        TextDelta("I will write a.txt."),
        TextDone("I will write a.txt."),
        ToolPartial("call_1", "write_to_file", path),
        ToolStarted("write_to_file", "a.txt", "call_1"),
        ToolFinished("write_to_file", "a.txt", True, "saved", "call_1"),
        RequestStarted(2),
        TextDelta("Now I edit "),
        # Both commits land while the second reply streams, the run's first one last.
        CheckpointCreated(FIRST, "after write_to_file a.txt", "call_1"),
        TextDelta("it again."),
        ToolPartial("call_2", "replace_in_file", {"path": "a.txt"}),
        CheckpointCreated(START, "task start"),
        TextDone("Now I edit it again."),
        ToolPartial("call_2", "replace_in_file", {"diff": "-a\n+b\n"}),  # what it gained
        ToolStarted("replace_in_file", "a.txt", "call_2"),
    ]
    return [event_json(Envelope(TASK, seq, 0.0, e)) for seq, e in enumerate(late, 1)]


def _rows(page: Any) -> list[str]:
    """Each row's kind, with the commit of a checkpoint and the first words of a text row."""
    return page.eval_on_selector_all(
        ".vlist-inner > [role=listitem] > .row",
        """nodes => nodes.map((n) => {
          const kind = [...n.classList].filter((c) => c !== "row").join(".");
          if (kind === "checkpoint") return `checkpoint ${n.dataset.commit.slice(0, 4)}`;
          if (kind === "text") return `text ${n.textContent.slice(0, 12)}`;
          return kind;
        })""",
    )


def test_a_late_checkpoint_is_placed_after_its_own_turn_and_no_row_is_drawn_twice(
    shared_ui, new_page
):
    page = new_page()
    sockets: list[Any] = []

    def route(ws: Any) -> None:
        server = ws.connect_to_server()
        server.on_message(ws.send)
        ws.on_message(server.send)
        sockets.append(ws)

    page.route_web_socket("**/ws", route)
    page.goto(shared_ui.url)
    expect(page.locator("body[data-connected=true]")).to_have_count(1)
    socket = sockets[0]
    socket.send(json.dumps({"type": "started", "task_id": TASK, "request": None}))
    socket.send(json.dumps({"type": "events", "task_id": TASK, "run": 1, "events": _events()}))
    expect(page.locator(".row.checkpoint")).to_have_count(2)
    expect(page.locator(".row.tool")).to_have_count(2)
    assert _rows(page) == [
        "user",
        f"checkpoint {START[:4]}",
        "text I will write",
        "tool",
        f"checkpoint {FIRST[:4]}",
        "text Now I edit i",
        "tool",
    ]
    expect(page.locator(".row.tool").nth(0)).to_contain_text("a.txt")


def test_a_saved_transcript_names_each_checkpoints_tool_call_and_skips_one_never_made():
    tool = UiMessage(1.0, "say", "tool", '{"tool": "write_to_file", "summary": "a.txt"}')
    tool.extra.update(toolCallId="call_1", lastCheckpointHash=FIRST)
    made = UiMessage(2.0, "say", "checkpoint_created", "")
    made.extra.update(toolCallId="call_1", lastCheckpointHash=FIRST, conversationHistoryIndex=1)
    # The process was killed while this one's commit was being made: it has no hash.
    unmade = UiMessage(3.0, "say", "checkpoint_created", "")
    unmade.extra.update(toolCallId="call_2", conversationHistoryIndex=3)
    events = list(saved_events(TASK, [tool, made, unmade]))
    assert [(e["kind"], e["tool_call_id"]) for e in events] == [
        ("tool_started", "call_1"),
        ("checkpoint_created", "call_1"),
    ]
    assert events[1]["commit"] == FIRST
