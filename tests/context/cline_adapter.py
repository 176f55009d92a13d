"""Cline's Anthropic-shaped message dicts -> our `Message` (XML tool calling).

Native tool calls become what our loop would have stored: the assistant's `tool_use` becomes the
XML call, the user's `tool_result` becomes a text block starting with `[tool for 'path'] Result:`.
"""

from __future__ import annotations

import json
from typing import Any

from pycline.context.results import parse_header
from pycline.messages import Content, ImageContent, Message, TextContent
from pycline.tools.base import describe


def to_messages(raw: list[dict[str, Any]]) -> list[Message]:
    calls: dict[str, tuple[str, dict[str, Any]]] = {}
    return [_message(m, calls) for m in raw]


def _message(raw: dict[str, Any], calls: dict[str, tuple[str, dict[str, Any]]]) -> Message:
    role = raw["role"]
    body = raw["content"]
    if isinstance(body, str):
        return Message(role, (TextContent(body),))
    content: list[Content] = []
    for block in body:
        kind = block["type"]
        if kind == "text":
            content.append(TextContent(block["text"]))
        elif kind == "image":
            content.append(ImageContent(block["source"]["media_type"], block["source"]["data"]))
        elif kind == "tool_use":
            calls[block["id"]] = (block["name"], block.get("input") or {})
            content.append(TextContent(_xml_call(block["name"], block.get("input") or {})))
        elif kind == "tool_result":
            text = _result_text(block["content"])
            if parse_header(text) is None:
                name, params = calls.get(block["tool_use_id"], ("unknown_tool", {}))
                text = f"[{describe(name, params.get('path'))}] Result:\n{text}"
            content.append(TextContent(text))
        else:
            raise ValueError(f"unexpected block type {kind!r}")
    return Message(role, tuple(content))


def _xml_call(name: str, params: dict[str, Any]) -> str:
    inner = "".join(f"<{k}>{v}</{k}>\n" for k, v in params.items())
    return f"<{name}>\n{inner}</{name}>"


def _result_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "\n".join(b["text"] for b in content if b.get("type") == "text")


def total_tokens(cline_messages: list[dict[str, Any]], index: int) -> int:
    """The `api_req_started` usage Cline reads: input + output + cache writes + cache reads."""
    if index < 0:
        return 0
    usage = json.loads(cline_messages[index]["text"])
    return sum(int(usage.get(k, 0)) for k in ("tokensIn", "tokensOut", "cacheWrites", "cacheReads"))
