"""JSON-RPC over stdio, one message per line, answering malformed input instead of dropping it.

The SDK's own stdio framing skips a line that is not JSON and stops reading altogether on a
line that is JSON but not an object. Here either gets a JSON-RPC error (parse error, invalid
request) and the connection carries on. So does a line nested deeper than any message goes, or
longer than `MAX_LINE_BYTES` (read through and dropped, never held whole); lone surrogates in a
message's strings become U+FFFD as it is decoded.
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any, Final

from pycline.command_wire import WireError, read_json

log = logging.getLogger("pycline.acp")

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
# A prompt may carry files and images inline; nothing an editor sends comes near this.
MAX_LINE_BYTES: Final = 64 * 1024 * 1024


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
            if line is _TOO_LONG:
                await self._error(
                    None, INVALID_REQUEST, "Invalid request", f"longer than {MAX_LINE_BYTES} bytes"
                )
                continue
            text = line.strip()
            if not text:
                continue
            try:
                message: Any = read_json(text)
            except WireError as exc:  # not JSON, not UTF-8, or nested without end
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
        """The next line; `_TOO_LONG` for one beyond the bound (read to its end, not kept)."""
        chunks: list[bytes] = []
        size = 0
        while True:
            try:
                piece = await self._reader.readuntil(b"\n")
            except asyncio.LimitOverrunError as exc:
                piece = await self._reader.readexactly(exc.consumed)
            except asyncio.IncompleteReadError as exc:
                if size + len(exc.partial) > MAX_LINE_BYTES:
                    return _TOO_LONG
                data = b"".join(chunks) + exc.partial
                return data or None
            size += len(piece)
            if size <= MAX_LINE_BYTES:
                chunks.append(piece)
            else:
                chunks.clear()
            if piece.endswith(b"\n"):
                return b"".join(chunks) if size <= MAX_LINE_BYTES else _TOO_LONG


_TOO_LONG: Final = b"\0too long"  # a sentinel compared by identity


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
