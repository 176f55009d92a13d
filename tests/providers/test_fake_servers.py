"""The fakes themselves: real chunked HTTP, odd splits, usable from another process."""

from __future__ import annotations

import json
import random
import socket
import subprocess
import sys
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from tests.fakes.anthropic_server import FakeAnthropic
from tests.fakes.openai_server import FakeOpenAI, OpenAIReply
from tests.fakes.server import split_oddly

REPO = Path(__file__).resolve().parents[2]


@given(st.binary(max_size=300), st.integers(min_value=0, max_value=10_000))
def test_split_pieces_rejoin_to_the_original(data: bytes, seed: int) -> None:
    parts = split_oddly(data, random.Random(seed))
    assert b"".join(parts) == data
    assert all(parts)


def test_split_always_cuts_inside_a_multibyte_character() -> None:
    data = 'data: {"x": "caf\u00e9 \u65e5\u672c"}\n\n'.encode()
    parts = split_oddly(data, random.Random(1), max_piece=64)
    cut_inside_char = any(0x80 <= part[0] <= 0xBF for part in parts[1:])
    assert cut_inside_char
    assert len(parts[0]) <= 3  # the first line is cut too


def _raw_post(port: int, path: str, body: dict[str, object]) -> bytes:
    payload = json.dumps(body).encode()
    head = (
        f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(payload)}\r\nConnection: close\r\n\r\n"
    ).encode()
    with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
        sock.sendall(head + payload)
        received = b""
        while chunk := sock.recv(65536):
            received += chunk
    return received


def _dechunk(body: bytes) -> list[bytes]:
    chunks: list[bytes] = []
    while True:
        size_line, _, body = body.partition(b"\r\n")
        size = int(size_line, 16)
        if size == 0:
            return chunks
        chunks.append(body[:size])
        assert body[size : size + 2] == b"\r\n"
        body = body[size + 2 :]


def test_openai_fake_streams_sse_in_odd_chunks() -> None:
    with FakeOpenAI([OpenAIReply(text="héllo wörld ✓")]) as srv:
        raw = _raw_post(srv.port, "/v1/chat/completions", {"model": "gpt-4o", "stream": True})
    head, _, body = raw.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200")
    assert b"Transfer-Encoding: chunked" in head
    chunks = _dechunk(body)
    stream = b"".join(chunks).decode()
    assert len(chunks) > 10
    assert stream.endswith("data: [DONE]\n\n")
    texts = [
        json.loads(line[6:])["choices"][0]["delta"].get("content") or ""
        for line in stream.splitlines()
        if line.startswith("data: {")
    ]
    assert "".join(texts) == "héllo wörld ✓"


def test_anthropic_fake_sends_named_events_and_real_error_bodies() -> None:
    with FakeAnthropic(["hi"]) as srv:
        raw = _raw_post(srv.port, "/v1/messages", {"model": "m", "stream": True})
        missing = _raw_post(srv.port, "/v1/nowhere", {})
    stream = b"".join(_dechunk(raw.partition(b"\r\n\r\n")[2])).decode()
    events = [line[7:] for line in stream.splitlines() if line.startswith("event: ")]
    assert events[0] == "message_start" and events[-1] == "message_stop"
    assert {"ping", "content_block_start", "content_block_delta", "message_delta"} <= set(events)
    head, _, body = missing.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 404")
    assert json.loads(body)["error"]["type"] == "not_found_error"


def test_a_subprocess_can_stream_from_the_fake() -> None:
    script = (
        "import asyncio, sys\n"
        "from pycline.messages import Message\n"
        "from pycline.providers.catalog import lookup\n"
        "from pycline.providers.openai_compat import OpenAIProvider\n"
        "async def main():\n"
        "    p = OpenAIProvider(api_key='k', model=lookup('openai', 'gpt-4o'), base_url=sys.argv[1])\n"
        "    async for c in p.stream('s', [Message.user('hi')]):\n"
        "        if c.kind == 'text': print(c.text, end='')\n"
        "    await p.aclose()\n"
        "asyncio.run(main())\n"
    )
    with FakeOpenAI(["from another process ✓"]) as srv:
        result = subprocess.run(
            [sys.executable, "-c", script, srv.base_url],
            capture_output=True,
            text=True,
            timeout=60,
            cwd=REPO,
            check=True,
        )
        assert len(srv.completions) == 1
    assert result.stdout == "from another process ✓"
