"""Showing a background task's events (their JSON envelopes) and asking its questions in a terminal."""

from __future__ import annotations

import sys
from typing import Any

from pycline.events import Answer


def render_event(event: dict[str, Any]) -> None:
    kind = event.get("kind")
    out = sys.stdout
    if kind in ("text_delta", "tool_output"):
        out.write(str(event.get("text", "")))
    elif kind == "text_done":
        out.write("\n")
    elif kind == "tool_started":
        out.write(f"\n> {event.get('summary', '')}\n")
    elif kind == "tool_finished" and not event.get("ok", True):
        lines = str(event.get("result", "")).strip().splitlines()
        out.write(f"  {lines[0][:200] if lines else 'failed'}\n")
    elif kind == "completion_result":
        out.write(f"\nTask completed:\n{event.get('result', '')}\n")
    elif kind == "usage":
        out.write(f"  · ${float(event.get('task_cost', 0.0)):.4f} so far\n")
    elif kind in ("notice", "error"):
        out.write(f"{'note' if kind == 'notice' else 'error'}: {event.get('text', '')}\n")
    out.flush()


def _describe(question: dict[str, Any]) -> str:
    match question.get("kind"):
        case "approval":
            preview = str(question.get("preview") or "")[:4000]
            return f"? Approve: {question.get('summary', '')}" + (f"\n{preview}" if preview else "")
        case "followup":
            return f"? {question.get('question', '')}"
        case "plan":
            return f"Plan:\n{question.get('response', '')}"
        case "error_retry":
            return f"? The request failed: {question.get('error', '')}"
        case "mistake_limit":
            return f"? The model made {question.get('count', '')} mistakes in a row"
        case other:
            return f"? {other}"


def prompt_answer(question: dict[str, Any]) -> Answer | None:
    """The user's answer; None when stdin is closed (detach).

    A number or an option's id picks that option; other text is a reply (with Deny, for an
    approval: feedback to the model).
    """
    options = [o for o in question.get("options") or [] if isinstance(o, dict)]
    print("\n" + _describe(question))
    for n, option in enumerate(options, 1):
        print(f"  {n}. {option.get('label', option.get('id'))}")
    try:
        reply = input("> " if not options else "choose (number) or type a reply: ").strip()
    except EOFError:
        return None
    ids = [str(o.get("id")) for o in options]
    if reply.isdigit() and 1 <= int(reply) <= len(options):
        return Answer(ids[int(reply) - 1])
    if reply in ids:
        return Answer(reply)
    if reply.lower() in ("y", "yes") and ids:
        return Answer(ids[0])
    return Answer("deny" if "deny" in ids else "", reply)
