"""Values from a provider's stream, checked before they become chunks.

The SDKs build stream events without validating them, so a broken proxy or a half-compatible
local server can hand us `"content": 5`, `"arguments": {...}` or a string where an object should
be. Each field an adapter reads goes through one of these: what is usable is converted (text
parts joined, a JSON object given as arguments re-encoded), anything else raises `Malformed`,
which the adapter reports as a provider error instead of a traceback.
"""

from __future__ import annotations

import json
from typing import Final

# A reply has a handful of tool calls; an index beyond this is not a real one.
MAX_CALL_INDEX: Final = 1_000


class Malformed(ValueError):
    """A stream event the adapter cannot read; the message names the field and what it held."""


def text(value: object, field: str) -> str:
    """A text field: a string, nothing, or a list of text parts (as some hosts send)."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(_is_text_part(part) for part in value):
        return "".join(str(part["text"]) for part in value if isinstance(part, dict))
    raise Malformed(f"{field} is {describe(value)}, not text")


def optional_text(value: object, field: str) -> str | None:
    """An id or a name: a string, or nothing ("" counts as nothing)."""
    if value is None or value == "":
        return None
    if isinstance(value, str):
        return value
    raise Malformed(f"{field} is {describe(value)}, not text")


def arguments(value: object) -> str:
    """A fragment of a tool call's arguments: its JSON text. A value that is not text (hosts that
    send the arguments as an object, or a number) is re-encoded, for the call to judge."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def index(value: object, field: str) -> int:
    """A tool call's position in the reply (hosts that send one call may leave it out)."""
    if value is None:
        return 0
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_CALL_INDEX:
        return value
    raise Malformed(f"{field} is {describe(value)}, not a call index")


def describe(value: object) -> str:
    match value:
        case bool():
            return "a boolean"
        case int() | float():
            return "a number"
        case list():
            return "a list"
        case dict():
            return "an object"
        case str():
            return "text"
        case _:
            return type(value).__name__


def _is_text_part(part: object) -> bool:
    return (
        isinstance(part, dict) and part.get("type") == "text" and isinstance(part.get("text"), str)
    )
