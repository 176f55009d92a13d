"""Our `Message`s in each wire format: OpenAI chat messages and Anthropic message blocks."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from pycline.messages import ImageContent, Message, TextContent

# Anthropic rejects empty text blocks and empty messages; this stands in for a blank turn.
EMPTY_TURN: Final = "(empty)"
EPHEMERAL: Final[dict[str, str]] = {"type": "ephemeral"}


def to_openai(system: str, messages: Sequence[Message]) -> list[dict[str, Any]]:
    """System prompt first; a user turn with images becomes a list of text and image_url parts."""
    wire: list[dict[str, Any]] = [{"role": "system", "content": system}]
    for message in messages:
        has_image = any(isinstance(c, ImageContent) for c in message.content)
        if message.role == "user" and has_image:
            wire.append({"role": "user", "content": [_openai_part(c) for c in message.content]})
        else:
            # Assistant turns are text only in chat completions.
            wire.append({"role": message.role, "content": message.text})
    return wire


def _openai_part(content: TextContent | ImageContent) -> dict[str, Any]:
    if isinstance(content, TextContent):
        return {"type": "text", "text": content.text}
    url = f"data:{content.media_type};base64,{content.data_b64}"
    return {"type": "image_url", "image_url": {"url": url}}


def to_anthropic_system(system: str, *, cache: bool) -> list[dict[str, Any]]:
    block: dict[str, Any] = {"type": "text", "text": system or EMPTY_TURN}
    if cache:
        block["cache_control"] = dict(EPHEMERAL)
    return [block]


def to_anthropic(messages: Sequence[Message], *, cache: bool) -> list[dict[str, Any]]:
    """Content blocks per message; with `cache`, the last two user turns get a cache breakpoint.

    Marking the newest user turn caches the whole conversation for the next request, and the one
    before it lets this request read what the previous request cached. With the system prompt
    that makes three of the four breakpoints Anthropic allows.
    """
    wire: list[dict[str, Any]] = [
        {"role": m.role, "content": _anthropic_blocks(m)} for m in messages
    ]
    if cache:
        user_turns = [w for w in wire if w["role"] == "user"]
        for turn in user_turns[-2:]:
            turn["content"][-1]["cache_control"] = dict(EPHEMERAL)
    return wire


def _anthropic_blocks(message: Message) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    for content in message.content:
        if isinstance(content, TextContent):
            if content.text:
                blocks.append({"type": "text", "text": content.text})
        else:
            source = {"type": "base64", "media_type": content.media_type, "data": content.data_b64}
            blocks.append({"type": "image", "source": source})
    if not blocks:
        blocks.append({"type": "text", "text": EMPTY_TURN})
    return blocks
