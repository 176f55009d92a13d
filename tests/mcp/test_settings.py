"""cline_mcp_settings.json: Cline's shape, merged with the workspace file, bad input reported."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pycline.errors import ConfigError
from pycline.mcp.settings import (
    RemoteServer,
    StdioServer,
    add_server,
    global_settings_path,
    load_settings,
    parse_server,
    remove_server,
    set_disabled,
    workspace_settings_path,
)


@pytest.mark.parametrize(
    ("raw", "kind"),
    [
        ({"command": "node", "args": ["s.js"]}, "stdio"),
        ({"command": "node", "transportType": "stdio"}, "stdio"),
        ({"type": "stdio", "command": "node"}, "stdio"),
        ({"url": "http://h/sse"}, "sse"),
        ({"url": "http://h/sse", "transportType": "sse"}, "sse"),
        ({"url": "http://h/mcp", "transportType": "http"}, "streamableHttp"),
        ({"url": "http://h/mcp", "type": "streamableHttp"}, "streamableHttp"),
        ({"url": "https://h/sse", "type": "sse", "headers": {"A": "b"}}, "sse"),
    ],
)
def test_transport_is_chosen_as_cline_does(raw: dict[str, object], kind: str) -> None:
    assert parse_server(raw).type == kind


def test_defaults_match_cline() -> None:
    config = parse_server({"command": "x"})
    assert isinstance(config, StdioServer)
    assert (config.disabled, config.auto_approve, config.timeout) == (False, (), 60.0)
    assert config.args == () and config.env == {} and config.cwd is None


def test_common_fields_are_read_with_their_cline_names() -> None:
    config = parse_server(
        {"url": "http://h", "autoApprove": ["a", "b"], "disabled": True, "timeout": 5}
    )
    assert isinstance(config, RemoteServer)
    assert config.auto_approve == ("a", "b") and config.disabled and config.timeout == 5


def test_unknown_fields_are_ignored() -> None:
    assert parse_server({"command": "x", "alwaysAllow": ["t"], "note": 1}).type == "stdio"


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ({}, "url"),
        ({"url": "ftp://h"}, "http"),
        ({"command": ""}, "command"),
        ({"command": "x", "timeout": 0}, "timeout"),
        ({"command": "x", "args": "not a list"}, "args"),
        ({"url": "http://h", "type": "websocket"}, "websocket"),
        ("a string", "object"),
    ],
)
def test_bad_entries_raise_readable_errors(raw: object, expected: str) -> None:
    with pytest.raises(ConfigError, match=expected):
        parse_server(raw)


def test_missing_file_means_no_servers(tmp_path: Path) -> None:
    settings = load_settings(tmp_path / "absent.json")
    assert settings.servers == {} and settings.errors == ()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("{not json", "line 1"),
        ("[1, 2]", "JSON object"),
        ('{"mcpServers": []}', "mcpServers"),
    ],
)
def test_broken_file_is_an_error_not_a_crash(tmp_path: Path, text: str, expected: str) -> None:
    path = tmp_path / "s.json"
    path.write_text(text, encoding="utf-8")
    settings = load_settings(path)
    assert settings.servers == {}
    assert len(settings.errors) == 1 and expected in settings.errors[0]


def test_one_bad_entry_leaves_the_others_usable(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    path.write_text(
        json.dumps({"mcpServers": {"good": {"command": "x"}, "bad": {"url": 3}}}), "utf-8"
    )
    servers = load_settings(path).servers
    assert servers["good"].config is not None and servers["good"].error == ""
    assert servers["bad"].config is None and "url" in servers["bad"].error


def test_workspace_file_overrides_global_entries_by_name(workspace: Path) -> None:
    global_path = global_settings_path()
    global_path.parent.mkdir(parents=True)
    global_path.write_text(
        json.dumps({"mcpServers": {"a": {"command": "global-a"}, "b": {"command": "global-b"}}}),
        "utf-8",
    )
    local = workspace_settings_path(workspace)
    local.parent.mkdir()
    local.write_text(
        json.dumps({"mcpServers": {"a": {"command": "local-a"}, "c": {"url": "http://h"}}}),
        "utf-8",
    )
    servers = load_settings(global_path, local).servers
    assert local == workspace / ".pycline" / "mcp.json"
    assert sorted(servers) == ["a", "b", "c"]
    a = servers["a"].config
    assert isinstance(a, StdioServer) and a.command == "local-a"
    assert servers["a"].source == "workspace" and servers["b"].source == "global"


def test_edits_keep_fields_we_do_not_know(tmp_path: Path) -> None:
    path = tmp_path / "settings" / "s.json"
    path.parent.mkdir()
    path.write_text(
        json.dumps({"other": 1, "mcpServers": {"x": {"command": "c", "custom": True}}}), "utf-8"
    )
    add_server(path, "y", {"url": "http://h", "type": "sse"})
    set_disabled(path, "x", True)
    data = json.loads(path.read_text("utf-8"))
    assert data["other"] == 1
    assert data["mcpServers"]["x"] == {"command": "c", "custom": True, "disabled": True}
    set_disabled(path, "x", False)
    remove_server(path, "y")
    data = json.loads(path.read_text("utf-8"))
    assert data["mcpServers"] == {"x": {"command": "c", "custom": True, "disabled": False}}


def test_edits_refuse_unknown_names_and_invalid_entries(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    with pytest.raises(ConfigError, match="no MCP server named 'nope'"):
        remove_server(path, "nope")
    with pytest.raises(ConfigError, match="url"):
        add_server(path, "bad", {"type": "sse"})
    assert not path.exists()
