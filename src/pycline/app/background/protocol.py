"""The control socket's wire format: one JSON object per line, both ways.

Client to task: `{"op": "status"}`, `{"op": "attach"}` (the task so far, then live),
`{"op": "answer", "question_id": ID, "answer": {"option": ..., "text": ...}}`, `{"op": "stop"}`.
Task to client: `{"type": "state", "state": {...}}`, `{"type": "event", "event": <events v2>}`,
`{"type": "question", "question_id": ID, "question": {...}}` for each question to answer,
`{"type": "ended", "status": ...}`, `{"type": "error", "message": ...}`.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

MAX_LINE = 4 * 1024 * 1024


def encode(message: dict[str, Any]) -> bytes:
    return (json.dumps(message, ensure_ascii=False) + "\n").encode()


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
