"""The JSON form of commands: every command round-trips, matches the shipped schema, and anything
else is refused with a `WireError` (a socket's input is untrusted)."""

from __future__ import annotations

import contextlib
import json
from importlib import resources
from typing import Any

import jsonschema
import pytest
from hypothesis import given
from hypothesis import strategies as st

from pycline import command_wire
from pycline.command_wire import (
    COMMAND_TYPES,
    WireError,
    accepted,
    command_from_json,
    command_json,
    read_json,
    rejected,
    reply_from_json,
    request_of,
)
from pycline.commands import (
    Accepted,
    AnswerQuestion,
    AutoApprove,
    Cancel,
    CancelQueued,
    Command,
    CommandEnvelope,
    Compact,
    EditQueued,
    ProceedWhileRunning,
    Rejected,
    SetApprovalPolicy,
    SetGoal,
    SetMode,
    SetModel,
    StopProcess,
    UserMessage,
)
from pycline.events import Answer

PNG = "data:image/png;base64,iVBORw0KGgo="

COMMANDS: list[Command] = [
    UserMessage("go on ✓", (PNG,)),
    UserMessage("stop, wrong folder", interrupt=True),
    EditQueued("m1", "use tabs"),
    CancelQueued("m2"),
    AnswerQuestion("17-q1", Answer("approve", "ok", (PNG,), "new content")),
    Cancel(),
    Compact(),
    SetMode("plan"),
    SetModel("anthropic/claude-sonnet-4-6", "act"),
    SetApprovalPolicy(AutoApprove(edit_files=True, yolo=False)),
    ProceedWhileRunning(),
    StopProcess(2),
    SetGoal("pytest -q", 3),
]


def test_the_samples_cover_every_command_kind() -> None:
    assert {c.kind for c in COMMANDS} == set(COMMAND_TYPES)


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c.kind)
def test_every_command_round_trips_through_json_and_matches_the_schema(command: Command) -> None:
    data = json.loads(json.dumps(command_json("17", command, request=4)))
    assert data["v"] == 1 and data["kind"] == command.kind and data["request"] == 4
    jsonschema.validate(data, command_wire.json_schema())
    assert command_from_json(data) == CommandEnvelope("17", command, 4)


def test_the_shipped_schema_is_the_one_the_types_generate() -> None:
    shipped = resources.files("pycline").joinpath("schema/commands.v1.json").read_text("utf-8")
    assert shipped == command_wire.schema_text(), "regenerate: python -m pycline.command_wire"


def test_replies_round_trip_and_match_the_schema() -> None:
    schema = command_wire.json_schema()
    reply_schema = {**schema, "oneOf": None, "$ref": "#/$defs/reply"}
    del reply_schema["oneOf"]
    for data, reply in [
        (accepted("17", "r1"), Accepted("17", "r1")),
        (accepted("17"), Accepted("17")),
        (rejected("17", "No open question 'q9'.", 3), Rejected("17", "No open question 'q9'.", 3)),
    ]:
        jsonschema.validate(data, reply_schema)
        assert reply_from_json(json.loads(json.dumps(data))) == reply


_text = st.text(max_size=30)
_images = st.lists(st.just(PNG) | _text, max_size=3).map(tuple)
_answers = st.builds(Answer, _text, _text, _images, st.none() | _text)
_commands: st.SearchStrategy[Command] = st.one_of(
    st.builds(UserMessage, _text, _images, st.booleans()),
    st.builds(EditQueued, _text, _text),
    st.builds(CancelQueued, _text),
    st.builds(AnswerQuestion, _text, _answers),
    st.just(Cancel()),
    st.just(Compact()),
    st.builds(SetMode, st.sampled_from(["act", "plan"])),
    st.builds(SetModel, _text, st.sampled_from(["act", "plan", "both"])),
    st.builds(SetApprovalPolicy, st.builds(AutoApprove, *[st.booleans()] * 10)),
    st.just(ProceedWhileRunning()),
    st.builds(StopProcess, st.integers(min_value=-(2**31), max_value=2**31)),
    st.builds(SetGoal, _text, st.integers(min_value=0, max_value=2**31)),
)


@given(_commands, _text, st.none() | st.integers() | _text)
def test_any_command_round_trips(command: Command, task_id: str, request: Any) -> None:
    data = json.loads(json.dumps(command_json(task_id, command, request=request)))
    assert command_from_json(data) == CommandEnvelope(task_id, command, request)


@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | _text,
        lambda c: st.lists(c) | st.dictionaries(_text, c),
        max_leaves=8,
    )
)
def test_any_json_decodes_to_a_command_or_a_wire_error(data: Any) -> None:
    for candidate in (data, {"v": 1, "task_id": "t", "kind": "answer", "answer": data}):
        with contextlib.suppress(WireError):
            command_from_json(candidate)
        request_of(candidate)  # never raises


@pytest.mark.parametrize(
    "data",
    [
        [],
        {"v": 2, "task_id": "t", "kind": "cancel"},
        {"v": 1, "kind": "cancel"},
        {"v": 1, "task_id": 3, "kind": "cancel"},
        {"v": 1, "task_id": "t", "kind": "no_such_kind"},
        {"v": 1, "task_id": "t", "kind": "cancel", "extra": 1},
        {"v": 1, "task_id": "t", "kind": "set_mode", "mode": "both"},
        {"v": 1, "task_id": "t", "kind": "stop_process", "number": "2"},
        {"v": 1, "task_id": "t", "kind": "stop_process", "number": True},
        {"v": 1, "task_id": "t", "kind": "answer", "question_id": "q", "answer": {"text": 3}},
        {"v": 1, "task_id": "t", "kind": "answer", "question_id": "q", "answer": {"option": None}},
        {"v": 1, "task_id": "t", "kind": "user_message", "text": "x", "images": "data:"},
        {"v": 1, "task_id": "t", "kind": "cancel", "request": [1]},
        {"v": 1, "task_id": "t", "kind": "set_approval_policy", "policy": {"yolo": "yes"}},
    ],
)
def test_malformed_commands_are_refused_with_a_wire_error(data: object) -> None:
    with pytest.raises(WireError):
        command_from_json(data)


def test_the_request_id_of_a_refused_command_is_found_for_its_reply() -> None:
    assert request_of(read_json('{"request": 7, "kind": "nonsense"}')) == 7
    assert request_of("not json") is None
    assert request_of({"request": {"nested": 1}}) is None


@pytest.mark.parametrize("raw", ["{not json", "[" * 100_000, b"\xff\xfe", ""])
def test_a_message_that_is_not_json_is_a_wire_error(raw: str | bytes) -> None:
    with pytest.raises(WireError):
        read_json(raw)


def test_lone_surrogates_in_a_message_become_replacement_characters() -> None:
    data = read_json('{"v": 1, "task_id": "t", "kind": "user_message", "text": "a\\ud800b"}')
    assert command_from_json(data).command == UserMessage("a\ufffdb")
