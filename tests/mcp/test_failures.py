"""Servers that misbehave: slow tools, crashes, garbage on stdout, missing commands."""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from pycline.errors import ToolError
from pycline.mcp.hub import McpHub, RestartPolicy
from pycline.mcp.model import ServerState, TextPart
from pycline.tools.base import ToolCall
from pycline.tools.mcp_tools import UseMcpToolTool
from tests.mcp.conftest import everything_stdio, py_server, write_settings
from tests.mcp.helpers import RecordingApprover, tool_context


def _state(hub: McpHub, name: str) -> ServerState:
    state = hub.server(name)
    assert state is not None
    return state


async def test_slow_tool_past_its_timeout_returns_promptly_with_an_error(
    make_hub: Callable[..., McpHub], workspace: Path
) -> None:
    write_settings({"slow": py_server("slow", timeout=0.5)})
    hub = make_hub()
    await hub.start()
    started = time.monotonic()
    with pytest.raises(ToolError, match=r"did not answer tool 'wait' within 0\.5 s"):
        await hub.call_tool("slow", "wait", {"seconds": 30})
    assert time.monotonic() - started < 10  # the tool would take 30 s
    # The server is still usable: one slow call does not cost the connection.
    assert (await hub.call_tool("slow", "quick", {})).parts == (TextPart("quick"),)

    call = ToolCall(
        "use_mcp_tool",
        {"server_name": "slow", "tool_name": "wait", "arguments": '{"seconds": 30}'},
    )
    started = time.monotonic()
    with pytest.raises(ToolError, match=r"within 0\.5 s"):
        await UseMcpToolTool().run(call, tool_context(workspace, hub, RecordingApprover()))
    assert time.monotonic() - started < 10  # the tool would take 30 s


async def test_crashed_server_is_reported_then_restarted_with_backoff(
    make_hub: Callable[..., McpHub], tmp_path: Path
) -> None:
    log = tmp_path / "starts.log"
    write_settings({"crashy": py_server("crash", env={"CRASH_LOG": str(log), "CRASH_STARTS": "2"})})
    hub = make_hub(restart=RestartPolicy(base_delay=0.2, max_attempts=5))
    await hub.start()
    assert (await hub.call_tool("crashy", "hello", {})).parts == (TextPart("alive (start 1)"),)

    with pytest.raises(ToolError, match="disconnected before answering"):
        await hub.call_tool("crashy", "crash", {})
    # While it waits for the first restart, the hub reports the crash and what the server said.
    assert await hub.wait_until(lambda: _state(hub, "crashy").status == "error", timeout=5)
    crashed = _state(hub, "crashy")
    assert "closed the connection" in crashed.error
    assert "crashing on request" in crashed.stderr_tail
    with pytest.raises(ToolError, match="not connected"):
        await hub.call_tool("crashy", "hello", {})

    # Starts 2 and 3 fail at once; start 4 comes up.
    assert await hub.wait_until(lambda: _state(hub, "crashy").status == "connected", timeout=20)
    assert _state(hub, "crashy").restarts == 3
    assert (await hub.call_tool("crashy", "hello", {})).parts == (TextPart("alive (start 4)"),)
    starts = [float(line) for line in log.read_text("utf-8").split()]
    gaps = [b - a for a, b in itertools.pairwise(starts[1:])]
    assert len(starts) == 4
    # Backoff doubles: 0.2 s before start 2, 0.4 s before start 3, 0.8 s before start 4.
    assert gaps[0] >= 0.4 and gaps[1] >= 0.8


async def test_hub_gives_up_after_the_maximum_restarts(
    make_hub: Callable[..., McpHub], tmp_path: Path
) -> None:
    log = tmp_path / "starts.log"
    write_settings(
        {"doomed": py_server("crash", env={"CRASH_LOG": str(log), "CRASH_STARTS": "99"})}
    )
    hub = make_hub(restart=RestartPolicy(base_delay=0.05, max_attempts=2))
    await hub.start()
    with pytest.raises(ToolError):
        await hub.call_tool("doomed", "crash", {})
    assert await hub.wait_until(lambda: "gave up" in _state(hub, "doomed").error, timeout=10)
    state = _state(hub, "doomed")
    assert state.status == "error" and "refuses to come up" in state.stderr_tail
    assert len(log.read_text("utf-8").split()) == 3  # the first start and two restarts


async def test_garbage_on_stdout_does_not_break_the_connection(
    make_hub: Callable[..., McpHub],
) -> None:
    write_settings({"noisy": py_server("garbage")})
    hub = make_hub()
    await hub.start()
    state = _state(hub, "noisy")
    assert state.status == "connected" and state.garbage_lines == 3
    for _ in range(2):
        assert (await hub.call_tool("noisy", "noisy", {})).parts == (TextPart("still fine"),)
    assert _state(hub, "noisy").garbage_lines == 7


@pytest.mark.parametrize(
    ("entry", "error", "stderr"),
    [
        ({"command": "/no/such/server"}, "command not found: /no/such/server", ""),
        (
            {"command": "sh", "args": ["-c", "echo 'cannot start: no key' >&2; exit 4"]},
            "exited during the MCP handshake",
            "cannot start: no key",
        ),
        ({"command": "sh", "args": ["-c", "exit 0"], "cwd": "/no/such/dir"}, "not a folder", ""),
        ({"url": "http://127.0.0.1:9/mcp", "type": "streamableHttp"}, "ConnectError", ""),
        ({"url": "http://127.0.0.1:9/sse"}, "ConnectError", ""),
    ],
)
async def test_servers_that_cannot_start_are_reported_not_retried(
    make_hub: Callable[..., McpHub],
    workspace: Path,
    entry: dict[str, object],
    error: str,
    stderr: str,
) -> None:
    write_settings({"broken": entry, "fine": everything_stdio()})
    hub = make_hub()
    await hub.start()
    state = _state(hub, "broken")
    assert state.status == "error" and error in state.error, state.error
    assert stderr in state.stderr_tail and state.restarts == 0
    assert _state(hub, "fine").status == "connected"

    call = ToolCall("use_mcp_tool", {"server_name": "broken", "tool_name": "x", "arguments": "{}"})
    approver = RecordingApprover()
    with pytest.raises(ToolError, match="'broken' is not connected"):
        await UseMcpToolTool().run(call, tool_context(workspace, hub, approver))
    assert approver.asked == []


async def test_calls_after_close_fail_cleanly(make_hub: Callable[..., McpHub]) -> None:
    write_settings({"a": everything_stdio()})
    hub = make_hub()
    await hub.start()
    await hub.close()
    with pytest.raises(ToolError, match=r"'a' is not connected \(disconnected\)"):
        await hub.call_tool("a", "echo", {"message": "late"})


async def test_server_that_never_answers_the_handshake_is_reported_promptly(
    make_hub: Callable[..., McpHub],
) -> None:
    write_settings({"mute": {"command": "sh", "args": ["-c", "exec sleep 60"]}})
    hub = make_hub(connect_timeout=0.5)
    started = time.monotonic()
    await hub.start()
    assert time.monotonic() - started < 10  # the server would hang 60 s
    state = _state(hub, "mute")
    assert state.status == "error" and "no answer to the MCP handshake within 0.5 s" in state.error
