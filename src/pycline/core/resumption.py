"""Prepare a saved conversation for resumption (SPEC §9)."""

from __future__ import annotations

import time

from pycline.core.focus_chain import REMINDER_HEADING
from pycline.messages import Content, Message, TextContent, ToolUseContent
from pycline.parsing.blocks import ToolUseBlock
from pycline.parsing.stream import parse_assistant_message
from pycline.prompts import responses


def prepare(history: list[Message]) -> tuple[list[Message], list[Content]]:
    """Split saved history into what stays and the content of the next user message.

    A trailing user message (its request was in flight) is taken back and re-sent, minus its stale
    environment details; a trailing tool call that never got its result is marked interrupted.
    """
    kept = list(history)
    pending: list[Content] = []
    if kept and kept[-1].role == "user":
        last = kept.pop()
        pending = [c for c in last.content if not _is_environment(c)]
    elif kept and kept[-1].role == "assistant" and _native_calls(kept[-1]):
        pending = [
            TextContent(f"[{c.name}] Result:\n{responses.INTERRUPTED}", c.id)
            for c in _native_calls(kept[-1])
        ]
    elif kept and kept[-1].role == "assistant":
        tool = next(
            (b for b in parse_assistant_message(kept[-1].text) if isinstance(b, ToolUseBlock)), None
        )
        if tool is not None:
            pending = [TextContent(f"[{tool.name}] Result:\n{responses.INTERRUPTED}")]
    return kept, pending


def interrupted_results(history: list[Message], call_id: str, body: str) -> Message:
    """The user message answering the last reply's calls when the task was stopped during one:
    that call's partial result (`body`), and "interrupted" for any other native call."""
    now = time.time()
    calls = _native_calls(history[-1]) if history and history[-1].role == "assistant" else []
    if not calls:
        return Message("user", (TextContent(body),), now)
    return Message(
        "user",
        tuple(
            TextContent(
                body if c.id == call_id else f"[{c.name}] Result:\n{responses.INTERRUPTED}", c.id
            )
            for c in calls
        ),
        now,
    )


def _native_calls(message: Message) -> list[ToolUseContent]:
    return [c for c in message.content if isinstance(c, ToolUseContent)]


def _is_environment(content: Content) -> bool:
    """Context the loop adds to each request (stale on resume: it is rebuilt)."""
    return isinstance(content, TextContent) and content.text.lstrip().startswith(
        ("<environment_details>", REMINDER_HEADING)
    )


def ago(ts: float, *, now: float | None = None) -> str:
    seconds = max(0.0, (now if now is not None else time.time()) - ts)
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60)):
        if seconds >= size:
            n = int(seconds // size)
            return f"{n} {unit}{'s' if n != 1 else ''} ago"
    return "just now"
