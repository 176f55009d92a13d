"""The UI's wire format: events and questions as JSON, answers from JSON.

Every message is an envelope `{"v": 2, "task_id", "seq", "ts", "kind", ...fields}`. Questions
carry a `question_id` and typed options `{id, label}` with Cline's button labels; an answer names
the option chosen plus optional `text`, `images` and `edited_content`.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Literal, assert_never

from pycline.events import (
    Answer,
    ApprovalQuestion,
    CompletionQuestion,
    ErrorRetryQuestion,
    Event,
    FollowupQuestion,
    MistakeLimitQuestion,
    PlanQuestion,
    Question,
)

WIRE_VERSION = 2
EDIT_TOOLS = frozenset({"write_to_file", "replace_in_file", "new_rule"})
MAX_IMAGES = 20


@dataclass(frozen=True, slots=True)
class Option:
    id: str
    label: str
    response: Literal["yes", "no", "text"]


def options_for(question: Question) -> tuple[Option, ...]:
    """The buttons Cline shows for this kind of question (its `buttonConfig`)."""
    match question:
        case ApprovalQuestion(tool=tool):
            if tool in EDIT_TOOLS:
                first = "Save"
            elif tool == "execute_command":
                first = "Run Command"
            else:
                first = "Approve"
            return (Option("yes", first, "yes"), Option("no", "Reject", "no"))
        case FollowupQuestion(options=choices):
            return tuple(Option(f"option-{i}", label, "text") for i, label in enumerate(choices))
        case CompletionQuestion():
            return (Option("yes", "Start New Task", "yes"),)
        case PlanQuestion():
            return (Option("yes", "Act", "yes"), Option("no", "Stop", "no"))
        case MistakeLimitQuestion():
            return (Option("yes", "Proceed Anyways", "yes"), Option("no", "Start New Task", "no"))
        case ErrorRetryQuestion():
            return (Option("yes", "Retry", "yes"), Option("no", "Start New Task", "no"))
        case _:
            assert_never(question)


def event_json(task_id: str, seq: int, ts: float, event: Event) -> dict[str, Any]:
    return {
        "v": WIRE_VERSION,
        "task_id": task_id,
        "seq": seq,
        "ts": ts,
        **dataclasses.asdict(event),
    }


def question_json(question: Question) -> dict[str, Any]:
    data = dataclasses.asdict(question)
    data["options"] = [{"id": o.id, "label": o.label} for o in options_for(question)]
    return data


class BadAnswer(ValueError):
    """The browser sent an answer that does not fit the question."""


def parse_answer(question: Question, data: dict[str, Any]) -> Answer:
    """The option the user clicked (or none: a typed reply), with what they typed alongside."""
    text = data.get("text") or ""
    edited = data.get("edited_content")
    images = data.get("images") or []
    if not isinstance(text, str) or not (edited is None or isinstance(edited, str)):
        raise BadAnswer("text and edited_content must be strings")
    if not isinstance(images, list) or len(images) > MAX_IMAGES:
        raise BadAnswer(f"images: a list of at most {MAX_IMAGES} data URLs")
    if not all(isinstance(i, str) and i.startswith("data:image/") for i in images):
        raise BadAnswer("images must be data:image/... URLs")
    option_id = data.get("option")
    if option_id is None:
        if not text.strip() and not images:
            raise BadAnswer("an answer needs an option or some text")
        return Answer("text", text, images=tuple(images))
    chosen = next((o for o in options_for(question) if o.id == option_id), None)
    if chosen is None:
        raise BadAnswer(f"no option {option_id!r} for this question")
    if chosen.response == "text":
        # A follow-up option is the reply itself; typed text goes along after it.
        reply = chosen.label if not text.strip() else f"{chosen.label}\n\n{text}"
        return Answer("text", reply, images=tuple(images))
    if edited is not None and not (isinstance(question, ApprovalQuestion) and question.content):
        raise BadAnswer("only a proposed file can be edited")
    return Answer(chosen.response, text, edited_content=edited, images=tuple(images))
