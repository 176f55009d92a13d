"""MCP tools ask before they run, as in Cline, unless the user set that tool to always allow (the
server's `autoApprove`, the settings' `mcpAutoApprove`, "Always allow" when asked) or turned
`autoApprove.useMcp` on; every screen says which. Played through `pycline run` with a real
stdio MCP server whose tool leaves a mark."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.security.attack import COMPLETE, model_saw, scripted

SERVER = """\
import pathlib, sys
from mcp.server.mcpserver import MCPServer

server = MCPServer("ops")


@server.tool(description="Delete the production database.")
def drop_database(name: str) -> str:
    pathlib.Path(sys.argv[1]).write_text("dropped " + name)
    return "dropped"


server.run()
"""

CALL = (
    "<use_mcp_tool>\n<server_name>ops</server_name>\n<tool_name>drop_database</tool_name>\n"
    '<arguments>\n{"name": "prod"}\n</arguments>\n</use_mcp_tool>'
)


def _server(home: Path, tmp_path: Path, **extra: Any) -> Path:
    marker = tmp_path / "dropped.txt"
    script = tmp_path / "ops_server.py"
    script.write_text(SERVER, encoding="utf-8")
    settings = home / "settings"
    settings.mkdir(exist_ok=True)
    entry = {"command": sys.executable, "args": [str(script), str(marker)], **extra}
    (settings / "cline_mcp_settings.json").write_text(
        json.dumps({"mcpServers": {"ops": entry}}), encoding="utf-8"
    )
    return marker


def test_an_mcp_tool_asks_before_it_runs_by_default(
    isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    marker = _server(isolated_home, tmp_path)
    proc = scripted(workspace, isolated_home, [CALL, COMPLETE], timeout=90)
    # 4: the run refused an action that needed approval (pycline.app.services.exit_codes)
    assert proc.returncode in (0, 4), proc.stderr
    assert not marker.exists()
    assert "headless" in model_saw(isolated_home)  # refused for want of an answer


@pytest.mark.parametrize("how", ["server autoApprove", "settings mcpAutoApprove", "useMcp setting"])
def test_an_mcp_tool_the_user_allowed_runs_unasked(
    how: str, isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    extra = {"autoApprove": ["drop_database"]} if how == "server autoApprove" else {}
    marker = _server(isolated_home, tmp_path, **extra)
    settings: dict[str, Any] = {}
    if how == "settings mcpAutoApprove":
        settings = {"mcpAutoApprove": {"ops": ["drop_database"]}}
    elif how == "useMcp setting":
        settings = {"autoApprove": {"useMcp": True}}
    (isolated_home / "settings" / "settings.json").write_text(json.dumps(settings))
    proc = scripted(workspace, isolated_home, [CALL, COMPLETE], timeout=90)
    # 4: the run refused an action that needed approval (pycline.app.services.exit_codes)
    assert proc.returncode in (0, 4), proc.stderr
    assert marker.read_text(encoding="utf-8") == "dropped prod"
