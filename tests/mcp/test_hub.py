"""The hub follows its settings files: parallel connect, reconnect on change, bad files."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from pycline.mcp.hub import McpHub
from pycline.mcp.model import ServerState, TextPart
from pycline.mcp.settings import global_settings_path, workspace_settings_path
from tests.mcp.conftest import everything_stdio, py_server, write_settings


def _state(hub: McpHub, name: str) -> ServerState:
    state = hub.server(name)
    assert state is not None
    return state


async def _pid(hub: McpHub, name: str) -> str:
    part = (await hub.call_tool(name, "pid", {})).parts[0]
    assert isinstance(part, TextPart)
    return part.text


async def test_all_enabled_servers_connect_and_disabled_ones_do_not(
    make_hub: Callable[..., McpHub],
) -> None:
    write_settings(
        {
            "one": py_server("normal"),
            "two": everything_stdio(),
            "off": py_server("normal", disabled=True),
        }
    )
    hub = make_hub()
    await hub.start()
    assert [(s.name, s.status) for s in hub.servers()] == [
        ("one", "connected"),
        ("two", "connected"),
        ("off", "disabled"),
    ]
    one = _state(hub, "one")
    assert [t.name for t in one.tools] == ["add", "pid", "shout", "picture", "fail"]
    assert [r.uri for r in one.resources] == ["note://hello"]
    assert [t.uri_template for t in one.templates] == ["note://items/{item}"]
    assert [s.name for s in hub.connected()] == ["one", "two"]


async def test_settings_change_reconnects_only_what_changed(
    make_hub: Callable[..., McpHub],
) -> None:
    write_settings({"a": py_server("normal"), "b": py_server("normal"), "gone": everything_stdio()})
    hub = make_hub(watch_interval=0.05)
    await hub.start()
    pid_a, pid_b = await _pid(hub, "a"), await _pid(hub, "b")

    # a: only autoApprove/timeout change (same process); b: its env changes (new process);
    # gone: removed; new: added.
    write_settings(
        {
            "a": py_server("normal", autoApprove=["add"], timeout=5),
            "b": py_server("normal", env={"SERVER_NAME": "renamed"}),
            "new": py_server("normal"),
        }
    )
    assert await hub.wait_until(
        lambda: (
            hub.server("new") is not None
            and _state(hub, "new").status == "connected"
            and _state(hub, "b").status == "connected"
        ),
        timeout=20,
    )
    assert hub.server("gone") is None
    assert await _pid(hub, "a") == pid_a
    assert hub.is_auto_approved("a", "add") and _state(hub, "a").timeout == 5
    assert _state(hub, "b").status == "connected" and await _pid(hub, "b") != pid_b
    assert _state(hub, "b").server_version.startswith("renamed")

    # Disabling stops the server; enabling brings it back.
    write_settings({"a": py_server("normal", disabled=True)})
    assert await hub.wait_until(lambda: _state(hub, "a").status == "disabled", timeout=10)
    assert [s.name for s in hub.servers()] == ["a"]
    write_settings({"a": py_server("normal")})
    assert await hub.wait_until(lambda: _state(hub, "a").status == "connected", timeout=20)


async def test_broken_settings_file_is_reported_and_fixing_it_recovers(
    make_hub: Callable[..., McpHub],
) -> None:
    path = global_settings_path()
    path.parent.mkdir(parents=True)
    path.write_text('{"mcpServers": {"a": ', encoding="utf-8")
    hub = make_hub(watch_interval=0.05)
    await hub.start()
    assert hub.servers() == [] and "not valid JSON" in hub.settings_errors[0]
    write_settings({"a": py_server("normal"), "bad": {"url": "nope"}})
    assert await hub.wait_until(
        lambda: hub.server("a") is not None and _state(hub, "a").status == "connected",
        timeout=20,
    )
    assert hub.settings_errors == ()
    bad = _state(hub, "bad")
    assert bad.status == "error" and "http" in bad.error and bad.transport is None


async def test_workspace_file_is_merged_over_the_global_one(
    make_hub: Callable[..., McpHub], workspace: Path
) -> None:
    write_settings({"shared": {"command": "/no/such/global"}, "global": py_server("normal")})
    local = workspace_settings_path(workspace)
    local.parent.mkdir()
    local.write_text(json.dumps({"mcpServers": {"shared": py_server("normal")}}), "utf-8")
    hub = make_hub(workspace=workspace)
    await hub.start()
    assert _state(hub, "shared").status == "connected"
    assert _state(hub, "shared").source == "workspace"
    assert _state(hub, "global").source == "global"


async def test_restart_server_reconnects_with_a_new_process(
    make_hub: Callable[..., McpHub],
) -> None:
    write_settings({"a": py_server("normal")})
    hub = make_hub()
    await hub.start()
    before = await _pid(hub, "a")
    state = await hub.restart_server("a")
    assert state.status == "connected" and await _pid(hub, "a") != before
