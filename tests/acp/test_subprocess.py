"""`pycline acp` as a child process: the SDK client drives it, and raw bytes cannot break it."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

from tests.acp.harness import (
    COMPLETE,
    RecordingClient,
    agent_command,
    command,
    read,
    replace,
    script_file,
    start,
    subprocess_agent,
    text,
)

READ_TIMEOUT = 30.0


async def test_the_agent_process_runs_a_task_then_a_new_process_loads_it(
    tmp_path: Path, workspace: Path, isolated_home: Path
) -> None:
    (workspace / "app.py").write_text("port = 8000\n", encoding="utf-8")
    script = script_file(
        tmp_path,
        read("app.py"),
        replace("app.py", "port = 8000", "port = 8080"),
        command(f'{sys.executable} -c "print(1 + 1)"'),
        COMPLETE,
    )
    client = RecordingClient(answers=["allow_once", "allow_once"])
    async with subprocess_agent(client, isolated_home, script) as (conn, _):
        sid = await start(conn, client, workspace)
        response = await conn.prompt(session_id=sid, prompt=text("port 8080"))
    assert response.stop_reason == "end_turn"
    assert (workspace / "app.py").read_text(encoding="utf-8") == "port = 8080\n"
    kinds = [c["kind"] for c in client.tool_calls().values()]
    assert kinds == ["read", "edit", "execute"]

    script.write_text(json.dumps(["Picked up again.\n" + COMPLETE]), encoding="utf-8")
    later = RecordingClient()
    async with subprocess_agent(later, isolated_home, script) as (conn, _):
        await conn.initialize(protocol_version=1, client_capabilities=later.capabilities())
        await conn.load_session(cwd=str(workspace), session_id=sid, mcp_servers=[])
        assert [u.kind for u in later.of("tool_call")] == ["read", "edit", "execute"]
        again = await conn.prompt(session_id=sid, prompt=text("more"))
    assert again.stop_reason == "end_turn"
    assert "Picked up again." in later.message_text()


class RawAgent:
    """The agent process spoken to line by line, every stdout line checked to be JSON-RPC."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process

    async def send(self, line: str | dict[str, Any]) -> None:
        assert self.process.stdin is not None
        data = line if isinstance(line, str) else json.dumps(line)
        self.process.stdin.write(data.encode() + b"\n")
        await self.process.stdin.drain()

    async def next(self) -> dict[str, Any]:
        assert self.process.stdout is not None
        raw = await asyncio.wait_for(self.process.stdout.readline(), READ_TIMEOUT)
        assert raw, "the agent closed stdout"
        message = json.loads(raw)  # nothing but protocol on stdout
        assert message["jsonrpc"] == "2.0"
        return dict(message)

    async def reply_to(self, request_id: int) -> dict[str, Any]:
        while True:
            message = await self.next()
            if message.get("id") == request_id and "method" not in message:
                return message


async def test_malformed_and_out_of_order_messages_get_json_rpc_errors_not_a_crash(
    tmp_path: Path, workspace: Path, isolated_home: Path
) -> None:
    script = script_file(tmp_path, "Hello from pycline.\n" + COMPLETE)
    env = {**os.environ, "PYCLINE_HOME": str(isolated_home)}
    cmd = agent_command(script)
    process = await asyncio.create_subprocess_exec(
        *cmd, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, env=env
    )
    agent = RawAgent(process)
    try:
        await agent.send("this is not json")
        assert (await agent.next())["error"]["code"] == -32700
        await agent.send("[1, 2, 3]")
        assert (await agent.next())["error"]["code"] == -32600
        await agent.send(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "session/new",
                "params": {"cwd": "/", "mcpServers": []},
            }
        )
        assert (await agent.reply_to(1))["error"]["code"] == -32600  # before initialize
        await agent.send({"jsonrpc": "2.0", "id": 2, "method": "no/such/method", "params": {}})
        assert (await agent.reply_to(2))["error"]["code"] == -32601
        init = {"protocolVersion": 1, "clientCapabilities": {}}
        await agent.send({"jsonrpc": "2.0", "id": 3, "method": "initialize", "params": init})
        assert (await agent.reply_to(3))["result"]["protocolVersion"] == 1
        await agent.send({"jsonrpc": "2.0", "id": 4, "method": "session/prompt", "params": 7})
        assert (await agent.reply_to(4))["error"]["code"] == -32600
        await agent.send({"jsonrpc": "2.0", "id": 5, "method": "session/prompt", "params": {}})
        assert (await agent.reply_to(5))["error"]["code"] == -32602
        unknown = {"sessionId": "nope", "prompt": [{"type": "text", "text": "hi"}]}
        await agent.send({"jsonrpc": "2.0", "id": 6, "method": "session/prompt", "params": unknown})
        assert (await agent.reply_to(6))["error"]["code"] == -32602
        await agent.send(
            {"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": "x"}}
        )
        # Still serving: a real session works after all of that.
        new = {"cwd": str(workspace), "mcpServers": []}
        await agent.send({"jsonrpc": "2.0", "id": 7, "method": "session/new", "params": new})
        sid = (await agent.reply_to(7))["result"]["sessionId"]
        prompt = {"sessionId": sid, "prompt": [{"type": "text", "text": "hi"}]}
        await agent.send({"jsonrpc": "2.0", "id": 8, "method": "session/prompt", "params": prompt})
        chunks: list[str] = []
        while True:
            message = await agent.next()
            if message.get("id") == 8:
                break
            update = message.get("params", {}).get("update", {})
            if update.get("sessionUpdate") == "agent_message_chunk":
                chunks.append(update["content"]["text"])
        assert message["result"]["stopReason"] == "end_turn"
        assert "Hello from pycline." in "".join(chunks)
    finally:
        assert process.stdin is not None
        process.stdin.close()
        await asyncio.wait_for(process.wait(), READ_TIMEOUT)
    assert process.returncode == 0


async def test_a_line_nested_100k_deep_is_a_parse_error_and_lone_surrogates_are_replaced(
    tmp_path: Path, workspace: Path, isolated_home: Path
) -> None:
    script = script_file(tmp_path, "Hello from pycline.\n" + COMPLETE)
    env = {**os.environ, "PYCLINE_HOME": str(isolated_home)}
    process = await asyncio.create_subprocess_exec(
        *agent_command(script), stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        env=env,
    )  # fmt: skip
    agent = RawAgent(process)
    try:
        await agent.send("[" * 100_000 + "]" * 100_000)
        assert (await agent.next())["error"]["code"] == -32700
        deep_params = {"protocolVersion": 1, "clientCapabilities": {"x": [[[[[[[]]]]]]] * 3}}
        nested: Any = deep_params
        for _ in range(200):
            nested = {"n": nested}
        await agent.send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": nested})
        assert (await agent.next())["error"]["code"] == -32700
        init = {"protocolVersion": 1, "clientCapabilities": {}}
        await agent.send({"jsonrpc": "2.0", "id": 2, "method": "initialize", "params": init})
        assert (await agent.reply_to(2))["result"]["protocolVersion"] == 1
        new = {"cwd": str(workspace), "mcpServers": []}
        await agent.send({"jsonrpc": "2.0", "id": 3, "method": "session/new", "params": new})
        sid = (await agent.reply_to(3))["result"]["sessionId"]
        # json.dumps escapes the lone surrogate (`"\ud800"`): valid JSON, no UTF-8 form.
        prompt = {"sessionId": sid, "prompt": [{"type": "text", "text": "hi \ud800 there"}]}
        await agent.send({"jsonrpc": "2.0", "id": 4, "method": "session/prompt", "params": prompt})
        reply = await agent.reply_to(4)
        assert reply["result"]["stopReason"] == "end_turn", reply
    finally:
        assert process.stdin is not None
        process.stdin.close()
        await asyncio.wait_for(process.wait(), READ_TIMEOUT)
    assert process.returncode == 0
    folder = next((isolated_home / "tasks").iterdir())
    history = (folder / "api_conversation_history.json").read_bytes().decode("utf-8")
    assert "hi \ufffd there" in json.loads(history)[0]["content"][0]["text"]


async def _pycline(home: Path, *args: str) -> str:
    env = {**os.environ, "PYCLINE_HOME": str(home)}
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "pycline", *args, env=env, stdout=asyncio.subprocess.PIPE
    )
    out, _ = await asyncio.wait_for(proc.communicate(), READ_TIMEOUT)
    assert proc.returncode == 0
    return out.decode()


async def test_an_editors_task_is_on_the_board_and_stopped_from_a_terminal(
    tmp_path: Path, workspace: Path, isolated_home: Path
) -> None:
    script = script_file(tmp_path, command(f'{sys.executable} -c "print(1)"'), COMPLETE)
    client = RecordingClient(answers=["hang"])  # the editor leaves the approval open
    async with subprocess_agent(client, isolated_home, script) as (conn, process):
        sid = await start(conn, client, workspace)
        turn = asyncio.create_task(conn.prompt(session_id=sid, prompt=text("run it")))
        await asyncio.wait_for(client.permission_asked.wait(), READ_TIMEOUT)
        [entry] = json.loads(await _pycline(isolated_home, "tasks", "--json"))
        assert entry["front_end"] == "editor" and entry["pid"] == process.pid
        assert entry["task"] == "run it" and entry["workspace"] == str(workspace)
        assert "stopped" in await _pycline(isolated_home, "stop", entry["id"])
        response = await asyncio.wait_for(turn, READ_TIMEOUT)
        assert response.stop_reason == "cancelled"
        assert json.loads(await _pycline(isolated_home, "tasks", "--json")) == []
