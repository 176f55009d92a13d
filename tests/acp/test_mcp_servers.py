"""MCP servers handed in by the client join the session's hub (the npm reference server)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from acp.schema import HttpMcpServer, McpServerStdio, SseMcpServer

from tests.acp.harness import COMPLETE, RecordingClient, in_process, script_file, text
from tests.mcp.conftest import everything_bin, http_everything

__all__ = ["http_everything"]  # the fixture, imported for these tests


def echo(server: str, message: str) -> str:
    arguments = json.dumps({"message": message})
    return (
        f"<use_mcp_tool>\n<server_name>{server}</server_name>\n<tool_name>echo</tool_name>\n"
        f"<arguments>{arguments}</arguments>\n</use_mcp_tool>"
    )


async def test_a_stdio_server_from_the_client_serves_the_task(
    tmp_path: Path, workspace: Path, isolated_home: Path
) -> None:
    script = script_file(tmp_path, echo("everything", "hello acp"), COMPLETE)
    client = RecordingClient()
    server = McpServerStdio(
        name="everything", command=str(everything_bin()), args=["stdio"], env=[]
    )
    async with in_process(client, isolated_home, script) as (conn, _):
        await conn.initialize(protocol_version=1, client_capabilities=client.capabilities())
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[server])
        await conn.prompt(session_id=session.session_id, prompt=text("echo"))
    (call,) = client.tool_calls().values()
    assert call["title"] == "everything: echo"
    assert call["status"] == "completed"
    assert "hello acp" in call["content"][0].content.text


@pytest.mark.parametrize("transport", ["http", "sse"])
async def test_an_http_or_sse_server_from_the_client_serves_the_task(
    tmp_path: Path,
    workspace: Path,
    isolated_home: Path,
    http_everything: Callable[[str], str],
    transport: str,
) -> None:
    script = script_file(tmp_path, echo("web", "over http"), COMPLETE)
    client = RecordingClient()
    server: HttpMcpServer | SseMcpServer
    if transport == "http":
        url = http_everything("streamableHttp")
        server = HttpMcpServer(type="http", name="web", url=url, headers=[])
    else:
        server = SseMcpServer(type="sse", name="web", url=http_everything("sse"), headers=[])
    async with in_process(client, isolated_home, script) as (conn, _):
        init = await conn.initialize(protocol_version=1, client_capabilities=client.capabilities())
        assert init.agent_capabilities.mcp_capabilities.http
        assert init.agent_capabilities.mcp_capabilities.sse
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[server])
        await conn.prompt(session_id=session.session_id, prompt=text("echo"))
    (call,) = client.tool_calls().values()
    assert "over http" in call["content"][0].content.text
