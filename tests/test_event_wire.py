"""The JSON form of events: every event and question round-trips and matches the shipped schema."""

from __future__ import annotations

import json
from importlib import resources

import jsonschema
import pytest

from pycline import event_wire
from pycline.event_wire import (
    EVENT_TYPES,
    QUESTION_TYPES,
    WireError,
    envelope_from_json,
    envelope_json,
)
from pycline.events import (
    APPROVE,
    Answer,
    ApprovalQuestion,
    BudgetQuestion,
    BudgetStatus,
    CheckpointCreated,
    CompletionQuestion,
    CompletionResult,
    Envelope,
    ErrorEvent,
    ErrorRetryQuestion,
    Event,
    FollowupQuestion,
    MessagesQueued,
    MistakeLimitQuestion,
    ModeChanged,
    Notice,
    PlanQuestion,
    PlanResponse,
    Question,
    QuestionAnswered,
    QuestionAsked,
    QueuedMessage,
    ReasoningDelta,
    RequestStarted,
    SubagentProgress,
    TaskEnded,
    TaskProgress,
    TaskStarted,
    TextDelta,
    TextDone,
    ToolFinished,
    ToolOutput,
    ToolPartial,
    ToolStarted,
    Usage,
)

QUESTIONS: list[Question] = [
    ApprovalQuestion("write_to_file", "write a.txt", "--- a\n+++ b", True, "x", "a.txt", "call_1"),
    FollowupQuestion.suggesting("Which port? ✓", ("8000", "8080")),
    FollowupQuestion("Anything else?"),
    CompletionQuestion("done"),
    PlanQuestion("1. do it"),
    MistakeLimitQuestion(3),
    ErrorRetryQuestion("HTTP 500"),
    BudgetQuestion("task", "usd", 1.02, 1.0),
]

EVENTS: list[Event] = [
    TaskStarted("17", "fix it", "/w", resumed=True),
    RequestStarted(2),
    TextDelta("Hel"),
    ReasoningDelta("hmm"),
    TextDone("Hello"),
    ToolPartial("call_1", "write_to_file", {"path": "a.txt", "content": "par"}),
    ToolPartial("call_1", "write_to_file", {"content": "tial"}, ("content",)),
    ToolStarted("read_file", "read_file a.py", "call_1"),
    ToolOutput("line\n", "call_1"),
    ToolFinished("read_file", "read_file a.py", True, "text", "call_1"),
    Usage(1, 2, 3, 4, 0.5, 1.5, 10, 200_000),
    Notice("retrying"),
    ErrorEvent("failed"),
    CompletionResult("done", "open index.html"),
    ModeChanged("act", "openai/gpt-4o"),
    PlanResponse("the plan"),
    CheckpointCreated("abc123", "after write_to_file a.txt", "call_1"),
    TaskEnded("17", True, "completed"),
    TaskProgress("- [x] a\n- [ ] b", 1, 2, "b"),
    BudgetStatus("day", "usd", 0.5, 5.0),
    MessagesQueued(
        (QueuedMessage("m2", "and tests"),),
        (QueuedMessage("m1", "tabs", ("data:image/png;base64,AA==",)),),
    ),
    SubagentProgress(
        1, 2, "what is in a.txt?", "running", "read_file a.txt", 10, 2, 0.01, "17-sub1", "scout", 1
    ),
    *(QuestionAsked(f"17-q{i}", q) for i, q in enumerate(QUESTIONS)),
    QuestionAnswered("17-q0", Answer(APPROVE.id, "ok", ("data:image/png;base64,AA==",), "new")),
    QuestionAnswered("17-q1", Answer(text="8080")),
]


def test_the_samples_cover_every_event_and_question_kind() -> None:
    assert {e.kind for e in EVENTS} == set(EVENT_TYPES)
    assert {q.kind for q in QUESTIONS} == set(QUESTION_TYPES)


@pytest.mark.parametrize("event", EVENTS, ids=lambda e: e.kind)
def test_every_event_round_trips_through_json_and_matches_the_schema(event: Event) -> None:
    envelope = Envelope("17", 5, 1_700_000_000.25, event)
    data = json.loads(json.dumps(envelope_json(envelope)))
    assert data["v"] == 3 and data["kind"] == event.kind and data["seq"] == 5
    jsonschema.validate(data, event_wire.json_schema())
    assert envelope_from_json(data) == envelope


def test_the_shipped_schema_is_the_one_the_types_generate() -> None:
    shipped = resources.files("pycline").joinpath("schema/events.v3.json").read_text("utf-8")
    assert shipped == event_wire.schema_text(), "regenerate: python -m pycline.event_wire"


@pytest.mark.parametrize(
    "data",
    [
        {"v": 1, "task_id": "t", "seq": 1, "ts": 0.0, "kind": "notice", "text": "x"},
        {"v": 2, "task_id": "t", "seq": 1, "ts": 0.0, "kind": "notice", "text": "x"},
        {"v": 3, "task_id": "t", "seq": 1, "ts": 0.0, "kind": "no_such_kind"},
        {"v": 3, "task_id": "t", "seq": 1, "ts": 0.0, "kind": "notice"},
        {"v": 3, "task_id": "t", "seq": 1, "ts": 0.0, "kind": "notice", "text": 3},
        {"v": 3, "task_id": "t", "seq": "1", "ts": 0.0, "kind": "notice", "text": "x"},
        {"v": 3, "task_id": "t", "seq": 1, "ts": 0.0, "kind": "notice", "text": "x", "extra": 1},
        {
            "v": 3,
            "task_id": "t",
            "seq": 1,
            "ts": 0.0,
            "kind": "question_asked",
            "question_id": "q",
            "question": {"kind": "approval", "tool": "x"},
        },
        [],
    ],
)
def test_malformed_json_is_refused_with_a_wire_error(data: object) -> None:
    with pytest.raises(WireError):
        envelope_from_json(data)
