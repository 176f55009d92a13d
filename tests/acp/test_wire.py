"""The stdio framing on its own: a line too long to hold is read through, answered and dropped."""

from __future__ import annotations

import asyncio
import json

import pytest

from pycline.acp import wire


class _Sink:
    def __init__(self) -> None:
        self.data = bytearray()

    def write(self, data: bytes) -> None:
        self.data += data

    async def drain(self) -> None:
        pass

    def close(self) -> None:
        pass


async def test_a_line_longer_than_the_bound_is_an_error_and_the_next_line_is_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(wire, "MAX_LINE_BYTES", 1000)
    reader = asyncio.StreamReader(limit=100)  # the bound spans several reads of the stream
    sink = _Sink()
    transport = wire.StdioTransport(reader, sink)  # type: ignore[arg-type]
    ok = {"jsonrpc": "2.0", "id": 2, "method": "x"}
    reader.feed_data(b'{"jsonrpc": "2.0", "id": 1, "pad": "' + b"a" * 5000 + b'"}\n')
    reader.feed_data(json.dumps(ok).encode() + b"\n")
    reader.feed_eof()
    assert await transport.receive() == ok
    (error,) = [json.loads(line) for line in sink.data.splitlines()]
    assert error["error"]["code"] == wire.INVALID_REQUEST
    assert await transport.receive() is None
