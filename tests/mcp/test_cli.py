"""`pycline mcp …` against real settings files and real servers."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from pycline.cli.mcp_cmd import run_mcp
from pycline.mcp.settings import global_settings_path
from tests.mcp.conftest import SERVERS, everything_bin


def _settings() -> dict[str, dict[str, object]]:
    servers: dict[str, dict[str, object]] = json.loads(global_settings_path().read_text("utf-8"))[
        "mcpServers"
    ]
    return servers


def test_add_edit_and_remove_servers(capsys: pytest.CaptureFixture[str], workspace: Path) -> None:
    assert run_mcp(["add", "local", "--env", "A=1", "--", "node", "server.js", "--flag"]) == 0
    assert run_mcp(
        ["add", "remote", "--url", "http://127.0.0.1:9/sse", "--type", "sse",
         "--header", "Authorization=Bearer x", "--auto-approve", "echo", "--timeout", "5"]
    ) == 0  # fmt: skip
    assert _settings() == {
        "local": {
            "command": "node",
            "args": ["server.js", "--flag"],
            "env": {"A": "1"},
            "autoApprove": [],
            "disabled": False,
        },
        "remote": {
            "type": "sse",
            "url": "http://127.0.0.1:9/sse",
            "headers": {"Authorization": "Bearer x"},
            "timeout": 5.0,
            "autoApprove": ["echo"],
            "disabled": False,
        },
    }
    assert run_mcp(["disable", "local"]) == 0 and _settings()["local"]["disabled"] is True
    assert run_mcp(["enable", "local"]) == 0 and _settings()["local"]["disabled"] is False
    assert run_mcp(["remove", "remote"]) == 0 and list(_settings()) == ["local"]
    assert "local: enabled in" in capsys.readouterr().out

    assert run_mcp(["--cwd", str(workspace), "--project", "add", "p", "--", "x"]) == 0
    local_file = workspace / ".pycline" / "mcp.json"
    assert json.loads(local_file.read_text("utf-8"))["mcpServers"]["p"]["command"] == "x"
    assert run_mcp(["--cwd", str(workspace), "disable", "p"]) == 1
    assert "run the command with --project" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["add", "x"], "either"),
        (["add", "x", "--url", "http://h", "--", "cmd"], "either"),
        (["add", "x", "--url", "ftp://h"], "http"),
        (["add", "x", "--url", "http://h", "--header", "novalue"], "KEY=VALUE"),
        (["remove", "ghost"], "no MCP server named 'ghost'"),
        (["list", "--", "x"], "only for"),
    ],
)
def test_bad_commands_are_refused_clearly(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    assert run_mcp(argv) != 0
    assert message in capsys.readouterr().err


def test_list_connects_and_shows_status_tools_and_stderr(
    capsys: pytest.CaptureFixture[str], workspace: Path
) -> None:
    run_mcp(["add", "everything", "--", str(everything_bin()), "stdio"])
    run_mcp(["add", "broken", "--", "sh", "-c", "echo 'missing API key' >&2; exit 1"])
    run_mcp(["add", "off", "--", "x"])
    run_mcp(["disable", "off"])
    capsys.readouterr()
    assert run_mcp(["--cwd", str(workspace), "list"]) == 0
    out = capsys.readouterr().out.splitlines()
    # 17: the server adds its elicitation, roots and sampling tools for a client that declares them.
    assert out[0].split() == ["everything", "stdio", "connected", "17", "tools"]
    assert out[1].split() == ["broken", "stdio", "error"]
    assert "exited during the MCP handshake" in out[2]
    assert out[3:5] == ["  stderr:", "    missing API key"]
    assert out[5].split() == ["off", "stdio", "disabled"]

    assert run_mcp(["--cwd", str(workspace), "list", "--json"]) == 0
    listed = {s["name"]: s for s in json.loads(capsys.readouterr().out)}
    assert "echo" in listed["everything"]["tools"] and listed["broken"]["status"] == "error"


def test_restart_and_tools_report_one_server(
    capsys: pytest.CaptureFixture[str], workspace: Path
) -> None:
    run_mcp(["add", "n", "--", sys.executable, str(SERVERS / "normal.py")])
    run_mcp(["add", "broken", "--", "/no/such/binary"])
    capsys.readouterr()
    assert run_mcp(["--cwd", str(workspace), "restart", "n"]) == 0
    assert capsys.readouterr().out.split() == ["n", "stdio", "connected", "5", "tools"]
    assert run_mcp(["--cwd", str(workspace), "tools", "n"]) == 0
    out = capsys.readouterr().out
    assert "add: Add two integers." in out and '"required": [' in out
    assert "resource template note://items/{item} (item)" in out
    assert run_mcp(["--cwd", str(workspace), "restart", "broken"]) == 1
    assert "command not found: /no/such/binary" in capsys.readouterr().out
    assert run_mcp(["--cwd", str(workspace), "restart", "ghost"]) == 1
    assert "No MCP server named 'ghost'" in capsys.readouterr().err
