"""JSON-RPC over stdio, one message per line, answering malformed input instead of dropping it.

The SDK's own stdio framing skips a line that is not JSON and stops reading altogether on a
line that is JSON but not an object. Here either gets a JSON-RPC error (parse error, invalid
request) and the connection carries on.
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

log = logging.getLogger("pycline.acp")

PARSE_ERROR = -32700
INVALID_REQUEST = -32600


class StdioTransport:
    """The `acp` Transport seam: decoded messages in, messages out."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._reader = reader
        self._writer = writer
        self._lock = asyncio.Lock()

    async def send(self, message: dict[str, Any]) -> None:
        line = json.dumps(message, ensure_ascii=False, separators=(",", ":")) + "\n"
        async with self._lock:
            self._writer.write(line.encode("utf-8"))
            await self._writer.drain()

    async def receive(self) -> dict[str, Any] | None:
        while True:
            line = await self._read_line()
            if line is None:
                return None
            text = line.strip()
            if not text:
                continue
            try:
                message = json.loads(text)
            except (json.JSONDecodeError, UnicodeDecodeError) as exc:
                log.warning("not JSON: %s", exc)
                await self._error(None, PARSE_ERROR, "Parse error")
                continue
            problem = _problem(message)
            if problem is None:
                return dict(message)
            request_id = message.get("id") if isinstance(message, dict) else None
            if not isinstance(request_id, (str, int)) or isinstance(request_id, bool):
                request_id = None
            await self._error(request_id, INVALID_REQUEST, "Invalid request", problem)

    async def close(self) -> None:
        self._writer.close()

    async def _error(
        self, request_id: str | int | None, code: int, text: str, detail: str = ""
    ) -> None:
        error: dict[str, Any] = {"code": code, "message": text}
        if detail:
            error["data"] = {"details": detail}
        await self.send({"jsonrpc": "2.0", "id": request_id, "error": error})

    async def _read_line(self) -> bytes | None:
        chunks: list[bytes] = []
        while True:
            try:
                chunks.append(await self._reader.readuntil(b"\n"))
                return b"".join(chunks)
            except asyncio.LimitOverrunError as exc:
                chunks.append(await self._reader.readexactly(exc.consumed))
            except asyncio.IncompleteReadError as exc:
                chunks.append(exc.partial)
                data = b"".join(chunks)
                return data or None


def _problem(message: object) -> str | None:
    """Why a decoded message is not a JSON-RPC 2.0 request, notification or response."""
    if not isinstance(message, dict):
        return "a message must be a JSON object"
    if message.get("jsonrpc") != "2.0":
        return 'a message must carry "jsonrpc": "2.0"'
    method = message.get("method")
    if "method" in message and not isinstance(method, str):
        return "method must be a string"
    if method is None and "id" not in message:
        return "neither a request nor a response"
    params = message.get("params")
    if params is not None and not isinstance(params, (dict, list)):
        return "params must be an object"
    return None
