"""The control socket's wire format: one JSON object per line, both ways.

Client to task: `{"op": "status"}`, `{"op": "attach"}` (replay, then live messages),
`{"op": "answer", "question_id": N, "answer": {...}}`, `{"op": "stop"}`.
Task to client: `{"type": "state", "state": {...}}`, `{"type": "event", "event": {...}}`,
`{"type": "question", "question_id": N, "question": {...}}`, `{"type": "answered", ...}`,
`{"type": "ended", "status": ..., "reason": ...}`, `{"type": "error", "message": ...}`.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
from typing import Any

from pycline.events import Answer

MAX_LINE = 4 * 1024 * 1024


def encode(message: dict[str, Any]) -> bytes:
    return (json.dumps(message, ensure_ascii=False, default=_default) + "\n").encode()


def _default(value: object) -> object:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    if isinstance(value, tuple | set):
        return list(value)
    raise TypeError(f"cannot encode {type(value).__name__}")


def as_json(item: object) -> dict[str, Any]:
    """A dataclass event or question as a JSON object."""
    data: dict[str, Any] = json.loads(json.dumps(item, default=_default))
    return data


async def read_message(reader: asyncio.StreamReader) -> dict[str, Any] | None:
    """The next message, or None at the end of the stream; garbage lines are skipped."""
    while True:
        line = await reader.readline()
        if not line:
            return None
        try:
            data = json.loads(line)
        except (json.JSONDecodeError, UnicodeDecodeError):
            continue
        if isinstance(data, dict):
            return data


def answer_from_json(data: object) -> Answer | None:
    """An Answer from a client; None when malformed (the client is told, the task waits on)."""
    if not isinstance(data, dict):
        return None
    response = data.get("response")
    text = data.get("text", "")
    edited = data.get("edited_content")
    if response not in ("yes", "no", "text") or not isinstance(text, str):
        return None
    if edited is not None and not isinstance(edited, str):
        return None
    return Answer(response, text, edited_content=edited)
