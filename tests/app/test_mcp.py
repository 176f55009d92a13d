"""MCP management use cases, as every front end calls them: real settings files, real servers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pycline.app.builders import mcp
from pycline.app.builders.mcp import NewServer
from pycline.app.settings.config import load
from pycline.errors import ConfigError, ToolError
from pycline.mcp.settings import global_settings_path, workspace_settings_path
from pycline.mcp.trust import McpTrust
from tests.mcp.conftest import py_server, write_settings


def _servers(path: Path) -> dict[str, dict[str, object]]:
    data: dict[str, dict[str, object]] = json.loads(path.read_text("utf-8"))["mcpServers"]
    return data


@pytest.mark.parametrize(
    ("text", "entry"),
    [
        ("https://h/mcp", {"type": "streamableHttp", "url": "https://h/mcp"}),
        ("node 'my server.js' -v", {"command": "node", "args": ["my server.js", "-v"]}),
    ],
)
def test_a_typed_line_becomes_a_url_or_a_command(text: str, entry: dict[str, object]) -> None:
    assert NewServer.parse(text).entry() == {**entry, "autoApprove": [], "disabled": False}


@pytest.mark.parametrize("text", ["", "   ", "node 'unclosed"])
def test_an_empty_or_unreadable_line_is_refused(text: str) -> None:
    with pytest.raises(ConfigError):
        NewServer.parse(text)


def test_a_server_needs_a_command_or_a_url_but_not_both() -> None:
    for server in (NewServer(), NewServer(command=("x",), url="http://h")):
        with pytest.raises(ConfigError, match="either"):
            server.entry()


def test_added_and_changed_servers_land_in_the_chosen_file(
    isolated_home: Path, workspace: Path
) -> None:
    stdio = NewServer(command=("node", "s.js"), env={"A": "1"}, timeout=5.0)
    written = mcp.add_server(isolated_home, workspace, "g", stdio)
    assert written == global_settings_path()
    assert _servers(written)["g"] == {
        "command": "node",
        "args": ["s.js"],
        "env": {"A": "1"},
        "timeout": 5.0,
        "autoApprove": [],
        "disabled": False,
    }
    project = mcp.add_server(isolated_home, workspace, "p", stdio, project=True)
    assert project == workspace_settings_path(workspace) and list(_servers(project)) == ["p"]
    mcp.change_server(isolated_home, workspace, "g", "disable")
    assert _servers(written)["g"]["disabled"] is True
    mcp.change_server(isolated_home, workspace, "p", "remove", project=True)
    assert _servers(project) == {}


def test_changing_a_server_of_the_other_file_names_that_file(
    isolated_home: Path, workspace: Path
) -> None:
    mcp.add_server(isolated_home, workspace, "p", NewServer(url="http://h"), project=True)
    with pytest.raises(mcp.DefinedElsewhere) as raised:
        mcp.change_server(isolated_home, workspace, "p", "enable")
    assert raised.value.file == workspace_settings_path(workspace)
    with pytest.raises(ConfigError) as unknown:
        mcp.change_server(isolated_home, workspace, "ghost", "remove")
    assert not isinstance(unknown.value, mcp.DefinedElsewhere)


def test_edits_keep_a_trusted_project_file_trusted_and_an_untrusted_one_untrusted(
    isolated_home: Path, workspace: Path
) -> None:
    mcp.add_server(isolated_home, workspace, "p", NewServer(command=("x",)), project=True)
    assert McpTrust(isolated_home).untrusted_file(workspace) is None
    file = write_settings({"evil": {"command": "evil"}}, workspace_settings_path(workspace))
    mcp.change_server(isolated_home, workspace, "evil", "disable", project=True)
    assert McpTrust(isolated_home).untrusted_file(workspace) == file


def test_trusting_the_project_file_reports_what_it_runs(
    isolated_home: Path, workspace: Path
) -> None:
    with pytest.raises(ConfigError, match="does not exist"):
        mcp.trust_project(isolated_home, workspace)
    file = write_settings(
        {"s": {"command": "node", "args": ["s.js"]}}, workspace / ".pycline/mcp.json"
    )
    assert mcp.pending_trust(isolated_home, workspace) is not None
    request = mcp.trust_project(isolated_home, workspace)
    assert request.file == file and request.description == ["  s: runs node s.js"]
    assert mcp.pending_trust(isolated_home, workspace) is None


def test_tool_auto_approval_is_added_and_taken_off_in_the_settings(isolated_home: Path) -> None:
    mcp.set_tool_auto_approve(isolated_home, "s", "b", True)
    mcp.set_tool_auto_approve(isolated_home, "s", "a", True)
    assert load(isolated_home).mcp_auto_approve == {"s": ["a", "b"]}
    mcp.set_tool_auto_approve(isolated_home, "s", "b", False)
    assert load(isolated_home).mcp_auto_approve == {"s": ["a"]}


async def test_checking_connects_the_servers_and_reports_each(
    isolated_home: Path, workspace: Path
) -> None:
    write_settings({"n": py_server("normal"), "off": {"command": "x", "disabled": True}})
    report = await mcp.check_servers(isolated_home, workspace)
    states = {s.name: s for s in report.servers}
    assert states["n"].status == "connected" and "add" in [t.name for t in states["n"].tools]
    assert states["off"].status == "disabled" and report.settings_errors == ()
    one = await mcp.check_server(isolated_home, workspace, "n")
    assert one.status == "connected"
    with pytest.raises(ToolError, match="ghost"):
        await mcp.check_server(isolated_home, workspace, "ghost")
