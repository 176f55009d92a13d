"""Servers on the stateless 2026-07-28 revision work as well as those on the earlier ones.

The SDK's server, stateless over streamable HTTP (it serves 2026-07-28 and the earlier
handshake on one endpoint), the same server refusing the handshake as a server of 2026-07-28
alone does, and a stdio server: each connects, lists and calls.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator

import pytest

from pycline.mcp.hub import McpHub
from pycline.mcp.model import TextPart
from tests.mcp.conftest import SERVERS, free_port, py_server, write_settings


@pytest.fixture(params=["both", "modern-only"])
def modern_url(request: pytest.FixtureRequest) -> Iterator[tuple[str, bool]]:
    port = free_port()
    flags = ["--modern-only"] if request.param == "modern-only" else []
    proc = subprocess.Popen(
        [sys.executable, str(SERVERS / "modern_http.py"), str(port), *flags],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}/mcp"
    deadline = time.monotonic() + 60
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=5).close()
            break
        except OSError:
            assert proc.poll() is None and time.monotonic() < deadline, "server did not start"
            time.sleep(0.1)
    try:
        yield url, bool(flags)
    finally:
        proc.terminate()
        proc.wait(timeout=10)


async def test_a_stateless_2026_server_and_a_stdio_one(
    modern_url: tuple[str, bool], make_hub: Callable[..., McpHub]
) -> None:
    url, modern_only = modern_url
    write_settings(
        {"modern": {"type": "streamableHttp", "url": url}, "classic": py_server("normal")}
    )
    hub = make_hub()
    await hub.start()
    assert [s.status for s in hub.servers()] == ["connected", "connected"]
    assert hub._conns["classic"].protocol_version == "2025-11-25"
    # A server of 2026-07-28 alone refuses the handshake; pycline then speaks its revision.
    if modern_only:
        assert hub._conns["modern"].protocol_version == "2026-07-28"
    for server in ("modern", "classic"):
        output = await hub.call_tool(server, "shout", {"text": "hi"})
        assert output.parts == (TextPart("HI"),)
