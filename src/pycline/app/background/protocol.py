"""The control socket's wire format: one JSON object per line, both ways.

Client to task: a command (`pycline.command_wire`: answer, user_message, cancel, …, each with the
task's id), answered by an `accepted` or `rejected` reply; or a request `{"op": "status"}` or
`{"op": "attach"}` (the task so far, then live; commands may follow on the same connection).
Task to client: `{"type": "state", "state": {...}}`, `{"type": "event", "event": <an event envelope>}`,
`{"type": "question", "question_id": ID, "question": {...}}` for each question to answer,
`{"type": "ended", "status": ...}`, and the command replies. A line that is not a JSON object
gets a `rejected` reply (so does one over `MAX_LINE`); the connection goes on.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from pycline.command_wire import read_json
from pycline.event_wire import WireError

MAX_LINE = 4 * 1024 * 1024


def encode(message: dict[str, Any]) -> bytes:
    return (json.dumps(message, ensure_ascii=False) + "\n").encode()


async def read_message(reader: asyncio.StreamReader) -> dict[str, Any] | None:
    """The next message, or None at the end of the stream; `WireError` for a line that is not
    a JSON object (the line is consumed: the next call reads on)."""
    try:
        line = await reader.readuntil(b"\n")
    except asyncio.IncompleteReadError as exc:
        line = exc.partial  # the last line, without its newline
    except asyncio.LimitOverrunError as exc:
        await _skip_line(reader, exc.consumed)
        raise WireError(f"a message must be at most {MAX_LINE // (1024 * 1024)} MiB") from None
    if not line:
        return None
    data = read_json(line)
    if not isinstance(data, dict):
        raise WireError("a message must be a JSON object")
    return data


async def _skip_line(reader: asyncio.StreamReader, consumed: int) -> None:
    """Drop the rest of an oversized line, its newline included, so the next read starts at the
    next message (the stream's buffer never holds more than its limit meanwhile)."""
    while True:
        await reader.readexactly(consumed)
        try:
            await reader.readuntil(b"\n")
            return
        except asyncio.IncompleteReadError:
            return  # the stream ended inside the line
        except asyncio.LimitOverrunError as exc:
            consumed = exc.consumed


async def read_replies(reader: asyncio.StreamReader) -> dict[str, Any] | None:
    """The next well-formed message from a task (a client's side: garbage is skipped)."""
    while True:
        try:
            return await read_message(reader)
        except WireError:
            continue
