"""Showing a background task's events (their JSON envelopes) and asking its questions in a terminal."""

from __future__ import annotations

from typing import Any, assert_never

from pycline.app.services.text import for_terminal, printable
from pycline.cli.lines import LineReader
from pycline.cli.screen import SESSION, Screen
from pycline.event_wire import WireError, envelope_from_json, question_from_json
from pycline.events import (
    Answer,
    ApprovalQuestion,
    BudgetQuestion,
    CompletionQuestion,
    ErrorRetryQuestion,
    FollowupQuestion,
    MistakeLimitQuestion,
    PlanQuestion,
    Question,
)


def render_event(screen: Screen, event: Any) -> None:
    """Show one event as the interactive session would (one this version cannot read is
    skipped: the task may run a newer pycline)."""
    try:
        envelope = envelope_from_json(event)
    except WireError:
        return
    screen.show(for_terminal(envelope.event))


def attached_screen() -> Screen:
    return Screen(SESSION)


def _describe(question: Question) -> str:
    match question:
        case ApprovalQuestion(summary=summary, preview=preview):
            return f"? Approve: {summary}" + (f"\n{preview[:4000]}" if preview else "")
        case FollowupQuestion(question=text):
            return f"? {text}"
        case PlanQuestion(response=response):
            return f"Plan:\n{response}"
        case ErrorRetryQuestion(error=error):
            return f"? The request failed: {error}"
        case MistakeLimitQuestion(count=count):
            return f"? The model made {count} mistakes in a row"
        case BudgetQuestion() | CompletionQuestion():
            return f"? {question.kind}"
        case _:
            assert_never(question)


async def prompt_answer(reader: LineReader, data: Any) -> Answer | None:
    """The user's answer; None when stdin is closed (detach) or the question cannot be read.

    A number or an option's id picks that option; other text is a reply (with Deny, for an
    approval: feedback to the model). The line is read from the event loop, so the prompt can be
    withdrawn (answered elsewhere) and Ctrl-C detaches at once.
    """
    try:
        question = for_terminal(question_from_json(data))
    except WireError:
        return None
    options = question.options
    print("\n" + _describe(question))
    for n, option in enumerate(options, 1):
        print(f"  {n}. {option.label}")
    reply = await reader.readline("> " if not options else "choose (number) or type a reply: ")
    if reply is None:
        return None
    return _reply(question, reply.strip())


def _reply(question: Question, reply: str) -> Answer:
    ids = [o.id for o in question.options]
    if reply.isdigit() and 1 <= int(reply) <= len(ids):
        return Answer(ids[int(reply) - 1])
    if reply in ids:
        return Answer(reply)
    if reply.lower() in ("y", "yes") and ids:
        return Answer(ids[0])
    return Answer("deny" if "deny" in ids else "", reply)


def answered_elsewhere(event: Any) -> str:
    """The line that withdraws a prompt another front end answered."""
    by = str(event.get("by") or "another window")
    answer = event.get("answer") if isinstance(event.get("answer"), dict) else {}
    said = str(answer.get("text") or answer.get("option") or "").strip()
    return f"Answered in {by}" + (f": {printable(said)[:200]}" if said else ".")
