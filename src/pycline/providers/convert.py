"""Our `Message`s in each wire format: OpenAI chat messages and Anthropic message blocks.

Native tool calls (`ToolUseContent`, and `TextContent` with a `tool_use_id`) go out in the
provider's own shape when the request offers tools. Without tools — XML mode, or after a fallback
from native calls — the same history is sent as text: a call as the XML it stands for, a result
as the text it carries, so a conversation can change format half-way.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, Final

from pycline.messages import Content, ImageContent, Message, TextContent, ToolUseContent
from pycline.parsing.native import ToolDefinition

# Anthropic rejects empty text blocks and empty messages; this stands in for a blank turn.
EMPTY_TURN: Final = "(empty)"
EPHEMERAL: Final[dict[str, str]] = {"type": "ephemeral"}


def to_openai(
    system: str, messages: Sequence[Message], *, native: bool = False
) -> list[dict[str, Any]]:
    """System prompt first; a user turn with images becomes a list of text and image_url parts.

    With `native`, an assistant's calls go in `tool_calls` and each result in a `tool` message
    right after it (as the API requires), the rest of the user turn in a user message.
    """
    wire: list[dict[str, Any]] = [{"role": "system", "content": system}]
    for message in messages:
        if native and message.role == "assistant":
            wire.append(_openai_assistant(message))
            continue
        content: list[Content] = list(message.content)
        if native:
            for c in message.content:
                if isinstance(c, TextContent) and c.tool_use_id is not None:
                    wire.append({"role": "tool", "tool_call_id": c.tool_use_id, "content": c.text})
            content = [c for c in content if not _is_result(c)]
            if not content:
                continue
        has_image = any(isinstance(c, ImageContent) for c in content)
        if message.role == "user" and has_image:
            wire.append({"role": "user", "content": [_openai_part(c) for c in content]})
        else:
            wire.append({"role": message.role, "content": _plain_text(content)})
    return wire


def _openai_assistant(message: Message) -> dict[str, Any]:
    text = message.text
    calls = [
        {
            "id": c.id,
            "type": "function",
            "function": {"name": c.name, "arguments": json.dumps(dict(c.params))},
        }
        for c in message.content
        if isinstance(c, ToolUseContent)
    ]
    out: dict[str, Any] = {"role": "assistant", "content": text or None}
    if calls:
        out["tool_calls"] = calls
    elif not text:
        out["content"] = ""
    return out


def _is_result(content: Content) -> bool:
    return isinstance(content, TextContent) and content.tool_use_id is not None


def _plain_text(content: Sequence[Content]) -> str:
    return "\n".join(c.text for c in content if not isinstance(c, ImageContent))


def _openai_part(content: Content) -> dict[str, Any]:
    if isinstance(content, ImageContent):
        return {"type": "image_url", "image_url": {"url": content.data_url}}
    return {"type": "text", "text": content.text}


def openai_tools(tools: Sequence[ToolDefinition]) -> list[dict[str, Any]]:
    return [
        {
            "type": "function",
            "function": {
                "name": t.name,
                "description": t.description,
                "parameters": dict(t.parameters),
            },
        }
        for t in tools
    ]


def anthropic_tools(tools: Sequence[ToolDefinition]) -> list[dict[str, Any]]:
    return [
        {"name": t.name, "description": t.description, "input_schema": dict(t.parameters)}
        for t in tools
    ]


def to_anthropic_system(system: str, *, cache: bool) -> list[dict[str, Any]]:
    block: dict[str, Any] = {"type": "text", "text": system or EMPTY_TURN}
    if cache:
        block["cache_control"] = dict(EPHEMERAL)
    return [block]


def to_anthropic(
    messages: Sequence[Message], *, cache: bool, native: bool = False
) -> list[dict[str, Any]]:
    """Content blocks per message; with `cache`, user turns get cache breakpoints.

    Marking the newest user turn caches the whole conversation for the next request, which
    repeats this one and adds to it (`context.steps`); the one before it lets this request read
    what the previous request cached. The first user turn (the task, which is never changed)
    keeps the system prompt and the task cached across the context's deliberate steps, which
    rewrite what follows it. With the system prompt that makes the four breakpoints Anthropic
    allows.
    """
    wire: list[dict[str, Any]] = [
        {"role": m.role, "content": _anthropic_blocks(m, native=native)} for m in messages
    ]
    if cache:
        user_turns = [w for w in wire if w["role"] == "user"]
        for turn in {id(t): t for t in (*user_turns[:1], *user_turns[-2:])}.values():
            turn["content"][-1]["cache_control"] = dict(EPHEMERAL)
    return wire


def _anthropic_blocks(message: Message, *, native: bool) -> list[dict[str, Any]]:
    results: list[dict[str, Any]] = []  # tool_result blocks must open the user turn
    blocks: list[dict[str, Any]] = []
    for content in message.content:
        if isinstance(content, TextContent) and content.tool_use_id is not None and native:
            results.append(
                {"type": "tool_result", "tool_use_id": content.tool_use_id, "content": content.text}
            )
        elif isinstance(content, ToolUseContent) and native:
            blocks.append(
                {"type": "tool_use", "id": content.id, "name": content.name,
                 "input": dict(content.params)}
            )  # fmt: skip
        elif isinstance(content, ImageContent):
            source = {"type": "base64", "media_type": content.media_type, "data": content.data_b64}
            blocks.append({"type": "image", "source": source})
        elif content.text:
            blocks.append({"type": "text", "text": content.text})
    blocks = results + blocks
    if not blocks:
        blocks.append({"type": "text", "text": EMPTY_TURN})
    return blocks
