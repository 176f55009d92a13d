"""A saved task's log replayed as session updates (`session/load`)."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import Any

import acp

from pycline.acp.mapping import tool_kind
from pycline.app.tool_catalogue import facts_of
from pycline.messages import UiMessage


def replay(messages: Sequence[UiMessage]) -> Iterator[Any]:
    calls = 0
    open_call: str | None = None
    for message in messages:
        text = message.text
        match (message.type, message.kind):
            case ("say", "task" | "user_feedback"):
                if text.strip():
                    yield acp.update_user_message_text(text)
            case ("say", "text" | "completion_result"):
                yield acp.update_agent_message_text(text + "\n")
            case ("say", "reasoning"):
                yield acp.update_agent_thought_text(text)
            case ("say", "error"):
                yield acp.update_agent_message_text(f"Error: {text}\n")
            case ("say", "tool"):
                tool, summary = _tool(text)
                if facts_of(tool).conversational:
                    open_call = None  # shown as messages, as when it ran
                    continue
                calls += 1
                open_call = f"replay_{calls}"
                yield acp.start_tool_call(
                    open_call, summary, kind=tool_kind(tool), status="in_progress"
                )
            case ("say", "command_output") if open_call is not None:
                block = acp.tool_content(acp.text_block(f"```\n{text}\n```"))
                yield acp.update_tool_call(open_call, content=[block])
            case ("say", "tool_result") if open_call is not None:
                ok = bool(message.extra.get("ok", True))
                yield acp.update_tool_call(open_call, status="completed" if ok else "failed")
                open_call = None
            case ("ask", "followup"):
                question = _followup(text)
                if question:
                    yield acp.update_agent_message_text(question + "\n")
            case _:
                pass


def _tool(text: str) -> tuple[str, str]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        return "", text
    if not isinstance(data, dict):
        return "", text
    return str(data.get("tool", "")), str(data.get("summary", ""))


def _followup(text: str) -> str:
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        return text
    if not isinstance(data, dict):
        return text
    options = "".join(f"\n- {o}" for o in data.get("options", []) if isinstance(o, str))
    return f"{data.get('question', '')}{options}"
