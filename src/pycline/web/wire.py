"""The UI's wire format: the session layer's JSON envelopes, with Cline's button labels on
questions, and the page's own requests (start, resume, resend, follow a background task).

Every event is `{"v": 3, "task_id", "seq", "ts", "kind", ...fields}` (`pycline.event_wire`); the
page's commands to a task are `pycline.command_wire`'s, checked by the task's handle.
Questions keep their option ids (what an answer names); the labels are Cline's for that kind of
question: Save/Reject for file edits, Run Command/Reject for commands, Approve/Reject otherwise,
Retry, Proceed Anyways, Start New Task.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, TypeAlias, assert_never

from pycline.app.services.tool_catalogue import facts_of
from pycline.commands import COMMANDS_VERSION
from pycline.event_wire import WireError, decode_union, envelope_json, kind_of, members
from pycline.events import (
    ApprovalQuestion,
    BudgetQuestion,
    CompletionQuestion,
    Envelope,
    ErrorRetryQuestion,
    FollowupQuestion,
    MistakeLimitQuestion,
    PlanQuestion,
    Question,
    QuestionAsked,
)

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
        case BudgetQuestion():
            return {"raise": "Raise the cap", "stop": "Stop"}
        case FollowupQuestion():
            return {}  # follow-up options are the model's own words
        case _:
            assert_never(question)


def event_json(envelope: Envelope) -> dict[str, Any]:
    data = envelope_json(envelope)
    if isinstance(envelope.event, QuestionAsked):
        labels = labels_for(envelope.event.question)
        for option in data["question"]["options"]:
            option["label"] = labels.get(option["id"], option["label"])
            option["secondary"] = option["id"] in REFUSE
    return data


class BadRequest(ValueError):
    """The page sent something that is not one of its requests."""


# --- what the page asks of the session (its commands to a task are `pycline.commands`) --------


@dataclass(frozen=True, slots=True)
class NewTask:
    text: str
    images: tuple[str, ...] = ()  # data URLs
    mode: Literal["act", "plan"] = "act"
    verify: str = ""  # a goal check: only its exit 0 completes the task ("": none)
    auto: bool = False  # auto (sandboxed) mode (app.auto_mode)
    kind: Literal["new_task"] = "new_task"


@dataclass(frozen=True, slots=True)
class ResumeTask:
    task_id: str
    mode: Literal["act", "plan"] = "act"
    kind: Literal["resume_task"] = "resume_task"


@dataclass(frozen=True, slots=True)
class Resend:
    """The user's earlier message (`original`, shown at `ts`) edited to `text`; the
    conversation goes back to before it (and the files to `commit`, with restore "both")."""

    task_id: str
    ts: float
    original: str
    text: str
    restore: Literal["task", "both"]  # Restore Chat, or Restore All (the files too)
    commit: str = ""  # the checkpoint before the message, for the files
    mode: Literal["act", "plan"] = "act"
    kind: Literal["resend"] = "resend"


@dataclass(frozen=True, slots=True)
class FollowBackground:
    """Show background task `bg_id` (saved task `task_id`) live; commands to it go to it."""

    bg_id: str
    task_id: str
    kind: Literal["follow_background"] = "follow_background"


PageRequest: TypeAlias = NewTask | ResumeTask | Resend | FollowBackground
REQUEST_TYPES: dict[str, type[Any]] = {kind_of(c): c for c in members(PageRequest)}


def page_request(data: dict[str, Any]) -> PageRequest:
    """One of the page's requests, checked; `WireError` saying what is wrong otherwise."""
    if data.get("v") != COMMANDS_VERSION:
        raise WireError(f"unsupported version {data.get('v')!r} (this is {COMMANDS_VERSION})")
    fields = {k: v for k, v in data.items() if k not in ("v", "request")}
    request: PageRequest = decode_union(fields, REQUEST_TYPES, "request")
    return request
