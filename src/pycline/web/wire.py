"""The UI's wire format: the session layer's JSON envelopes, with Cline's button labels on
questions, and answers from the page checked before they reach the task.

Every event is `{"v": 2, "task_id", "seq", "ts", "kind", ...fields}` (`pycline.event_wire`).
Questions keep their option ids (what an answer names); the labels are Cline's for that kind of
question: Save/Reject for file edits, Run Command/Reject for commands, Approve/Reject otherwise,
Retry, Proceed Anyways, Start New Task.
"""

from __future__ import annotations

from typing import Any

from pycline.app.tool_catalogue import facts_of
from pycline.event_wire import envelope_json
from pycline.events import (
    Answer,
    ApprovalQuestion,
    CompletionQuestion,
    Envelope,
    ErrorRetryQuestion,
    MistakeLimitQuestion,
    PlanQuestion,
    Question,
    QuestionAsked,
)

MAX_IMAGES = 20
REFUSE = frozenset({"deny", "stop"})  # shown as the secondary button


def labels_for(question: Question) -> dict[str, str]:
    """Cline's label for each option id this question offers (its `buttonConfig`)."""
    match question:
        case ApprovalQuestion(tool=tool):
            effect = facts_of(tool).effect
            first = (
                "Save" if effect == "edit" else "Run Command" if effect == "execute" else "Approve"
            )
            return {"approve": first, "deny": "Reject"}
        case CompletionQuestion():
            return {"accept": "Start New Task"}
        case PlanQuestion():
            return {"act": "Act", "stop": "Stop"}
        case MistakeLimitQuestion():
            return {"continue": "Proceed Anyways", "stop": "Start New Task"}
        case ErrorRetryQuestion():
            return {"retry": "Retry", "stop": "Start New Task"}
        case _:
            return {}  # follow-up options are the model's own words


def event_json(envelope: Envelope) -> dict[str, Any]:
    data = envelope_json(envelope)
    if isinstance(envelope.event, QuestionAsked):
        labels = labels_for(envelope.event.question)
        for option in data["question"]["options"]:
            option["label"] = labels.get(option["id"], option["label"])
            option["secondary"] = option["id"] in REFUSE
    return data


class BadAnswer(ValueError):
    """The browser sent an answer that does not fit the question."""


def parse_answer(question: Question, data: dict[str, Any]) -> Answer:
    """The option the user clicked (or none: a typed reply), with what they typed alongside."""
    text = data.get("text") or ""
    edited = data.get("edited_content")
    images = data.get("images") or []
    option = data.get("option") or ""
    if not isinstance(text, str) or not isinstance(option, str):
        raise BadAnswer("option and text must be strings")
    if not (edited is None or isinstance(edited, str)):
        raise BadAnswer("edited_content must be a string")
    if not isinstance(images, list) or len(images) > MAX_IMAGES:
        raise BadAnswer(f"images: a list of at most {MAX_IMAGES} data URLs")
    if not all(isinstance(i, str) and i.startswith("data:image/") for i in images):
        raise BadAnswer("images must be data:image/... URLs")
    if not option and not text.strip() and not images:
        raise BadAnswer("an answer needs an option or some text")
    if option and option not in {o.id for o in question.options}:
        raise BadAnswer(f"no option {option!r} for this question")
    if edited is not None and not (
        isinstance(question, ApprovalQuestion) and question.content is not None
    ):
        raise BadAnswer("only a proposed file can be edited")
    return Answer(option=option, text=text, images=tuple(images), edited_content=edited)
