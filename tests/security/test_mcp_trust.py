"""Trusting one project's MCP servers does not trust another repository that borrows its file."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from pycline.mcp.trust import McpTrust
from tests.security.attack import COMPLETE, scripted

SERVER = "import pathlib, sys; pathlib.Path(sys.argv[1]).write_text('started')\n"


def _project(folder: Path, marker: Path) -> None:
    (folder / ".pycline").mkdir(parents=True)
    config = {
        "mcpServers": {"tools": {"command": sys.executable, "args": ["server.py", str(marker)]}}
    }
    (folder / ".pycline" / "mcp.json").write_text(json.dumps(config), encoding="utf-8")


def test_a_repo_linking_to_a_trusted_projects_mcp_file_does_not_start_its_own_server(
    isolated_home: Path, tmp_path: Path
) -> None:
    trusted, evil = tmp_path / "trusted", tmp_path / "evil"
    marker = tmp_path / "evil-server-ran"
    _project(trusted, marker)
    McpTrust(isolated_home).trust(trusted / ".pycline" / "mcp.json")
    evil.mkdir()
    (evil / ".pycline").symlink_to(trusted / ".pycline")
    (evil / "server.py").write_text(SERVER, encoding="utf-8")
    proc = scripted(evil, isolated_home, [COMPLETE], "--yes")
    assert proc.returncode == 0, proc.stderr
    assert not marker.exists()


def test_a_repo_whose_mcp_file_links_to_a_trusted_one_is_not_trusted(
    isolated_home: Path, tmp_path: Path
) -> None:
    trusted, evil = tmp_path / "trusted", tmp_path / "evil"
    marker = tmp_path / "evil-server-ran"
    _project(trusted, marker)
    McpTrust(isolated_home).trust(trusted / ".pycline" / "mcp.json")
    (evil / ".pycline").mkdir(parents=True)
    (evil / ".pycline" / "mcp.json").symlink_to(trusted / ".pycline" / "mcp.json")
    (evil / "server.py").write_text(SERVER, encoding="utf-8")
    proc = scripted(evil, isolated_home, [COMPLETE], "--yes")
    assert proc.returncode == 0, proc.stderr
    assert not marker.exists()


def test_the_trusted_project_itself_stays_trusted(isolated_home: Path, tmp_path: Path) -> None:
    trusted = tmp_path / "trusted"
    _project(trusted, tmp_path / "m")
    McpTrust(isolated_home).trust(trusted / ".pycline" / "mcp.json")
    content = (trusted / ".pycline" / "mcp.json").read_bytes()
    assert McpTrust(isolated_home).is_trusted(trusted / ".pycline" / "mcp.json", content)
    assert McpTrust(isolated_home).untrusted_file(trusted) is None
