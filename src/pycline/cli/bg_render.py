"""Showing a background task's events (JSON objects) and asking its questions in a terminal."""

from __future__ import annotations

import sys
from typing import Any


def render_event(event: dict[str, Any]) -> None:
    kind = event.get("kind")
    out = sys.stdout
    if kind == "text_delta" or kind == "tool_output":
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


def _read(prompt: str) -> str | None:
    try:
        return input(prompt)
    except EOFError:
        return None


def prompt_answer(question: dict[str, Any]) -> dict[str, Any] | None:
    """The user's answer as the socket takes it; None when stdin is closed (detach)."""
    kind = question.get("kind")
    print()
    if kind == "approval":
        print(f"? Approve: {question.get('summary', '')}")
        if question.get("preview"):
            print(str(question["preview"])[:4000])
        reply = _read("[y]es / [n]o / or type feedback to refuse with it: ")
    elif kind == "followup":
        print(f"? {question.get('question', '')}")
        for n, option in enumerate(question.get("options") or [], 1):
            print(f"  {n}. {option}")
        reply = _read("> ")
        if reply is None:
            return None
        options = question.get("options") or []
        if reply.strip().isdigit() and 1 <= int(reply) <= len(options):
            reply = options[int(reply) - 1]
        return {"response": "text", "text": reply}
    elif kind == "plan":
        print(f"Plan:\n{question.get('response', '')}")
        reply = _read("[y] switch to Act / [n] stop / or type a reply: ")
    else:
        detail = question.get("error") or f"{question.get('count', '')} mistakes in a row"
        print(f"? {kind}: {detail}")
        reply = _read("[y] continue / [n] stop: ")
    if reply is None:
        return None
    word = reply.strip().lower()
    if word in ("y", "yes"):
        return {"response": "yes"}
    if word in ("n", "no", ""):
        return {"response": "no"}
    return {"response": "no" if kind == "approval" else "text", "text": reply.strip()}
