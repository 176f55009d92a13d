"""A saved task for people to read: the Markdown transcript (`export`) and the summary (`show`)."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Sequence
from typing import Any

from pycline.messages import Message, TextContent, UiMessage


def export_markdown(messages: Sequence[Message]) -> str:
    """The conversation the model saw, as Markdown: one `**User:**`/`**Assistant:**` section each."""
    sections = []
    for message in messages:
        role = "**User:**" if message.role == "user" else "**Assistant:**"
        body = "\n".join(
            c.text if isinstance(c, TextContent) else "[Image]" for c in message.content
        )
        sections.append(f"{role}\n\n{body}\n\n")
    return "---\n\n".join(sections)


def export_file_name(ts: float) -> str:
    """`pycline_task_<month>-<day>-<year>_<h>-<mm>-<ss>-<am|pm>.md`, the task's start time."""
    when = dt.datetime.fromtimestamp(ts)
    hour = when.hour % 12 or 12
    half = "am" if when.hour < 12 else "pm"
    return (
        f"pycline_task_{when.strftime('%b').lower()}-{when.day}-{when.year}"
        f"_{hour}-{when.minute:02d}-{when.second:02d}-{half}.md"
    )


def _one_line(text: str, limit: int = 160) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _json(text: str) -> dict[str, Any]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        return {}
    return data if isinstance(data, dict) else {}


def _describe(m: UiMessage) -> str | None:
    """One line for a UI message, or None for bookkeeping the reader does not need."""
    say = m.type == "say"
    match m.kind:
        case "task":
            return f"Task: {_one_line(m.text, 400)}"
        case "resume_task":
            return "Resumed"
        case "text" if say:
            return f"Assistant: {_one_line(m.text)}"
        case "reasoning":
            return f"Thinking ({len(m.text)} characters)"
        case "tool" if say:
            return f"Tool: {_json(m.text).get('summary') or _one_line(m.text)}"
        case "tool_result":
            mark = "ok" if m.extra.get("ok", True) else "failed"
            return f"  {mark}: {_one_line(m.text, 120)}" if m.text.strip() else f"  {mark}"
        case "command_output":
            return f"  output: {len(m.text.splitlines())} lines"
        case "tool" | "command":
            return None  # the approval question repeats the tool line; the answer follows
        case "followup":
            return f"Question: {_one_line(str(_json(m.text).get('question', m.text)))}"
        case "user_feedback":
            # `response` is the yes/no of tasks saved before answers named their option.
            chosen = str(m.extra.get("option", m.extra.get("response", "")))
            answer = _ANSWER_WORDS.get(chosen, "replied")
            return f"User {answer}" + (f": {_one_line(m.text)}" if m.text.strip() else "")
        case "completion_result" if say:
            return f"Completed: {_one_line(m.text, 400)}"
        case "checkpoint_created" if m.extra.get("lastCheckpointHash"):
            return f"Checkpoint {str(m.extra['lastCheckpointHash'])[:8]}"
        case "deleted_api_reqs":
            return "Conversation restored to a checkpoint"
        case "info":
            return f"Note: {_one_line(m.text)}"
        case "error" | "api_req_failed":
            return f"Error: {_one_line(m.text)}"
        case "mistake_limit_reached":
            return f"The model made {m.text} mistakes in a row"
        case _:
            return None


_ANSWER_WORDS = {
    "approve": "approved",
    "accept": "accepted",
    "act": "switched to Act mode",
    "continue": "continued",
    "retry": "retried",
    "deny": "declined",
    "stop": "stopped",
    "yes": "approved",
    "no": "declined",
}


def transcript_summary(messages: Sequence[UiMessage]) -> list[str]:
    lines = []
    for m in messages:
        text = _describe(m)
        if text is not None:
            stamp = dt.datetime.fromtimestamp(m.ts).strftime("%H:%M:%S")
            lines.append(f"{stamp}  {text}")
    return lines
