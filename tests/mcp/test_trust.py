"""A project's `.pycline/mcp.json` starts nothing until the user trusts that exact content."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pexpect

from pycline.mcp.hub import McpHub
from pycline.mcp.settings import workspace_settings_path
from pycline.mcp.trust import McpTrust, describe
from tests.cli.task_cli import COMPLETE, load_json, pycline, script_file
from tests.cli.test_interactive import spawn
from tests.mcp.conftest import SERVERS, py_server, write_settings


def _marked_server(marker: Path) -> dict[str, object]:
    """The `normal` test server, started through a shell that first leaves a marker file."""
    start = f"echo started >> {shlex.quote(str(marker))}; "
    start += f"exec {shlex.quote(sys.executable)} {shlex.quote(str(SERVERS / 'normal.py'))}"
    return {"command": "sh", "args": ["-c", start], "autoApprove": ["shout"]}


def _shout(text: str) -> str:
    return (
        "<use_mcp_tool>\n<server_name>proj</server_name>\n<tool_name>shout</tool_name>\n"
        f'<arguments>\n{{"text": "{text}"}}\n</arguments>\n</use_mcp_tool>'
    )


def test_trust_is_for_the_exact_content(isolated_home: Path, workspace: Path) -> None:
    trust = McpTrust(isolated_home)
    assert trust.untrusted_file(workspace) is None  # no file: nothing to ask about
    file = write_settings({"a": py_server("normal")}, workspace_settings_path(workspace))
    assert trust.untrusted_file(workspace) == file
    trust.trust(file)
    assert trust.untrusted_file(workspace) is None
    write_settings({"a": py_server("normal"), "b": {"command": "evil"}}, file)  # a `git pull`
    assert trust.untrusted_file(workspace) == file
    trust.path.write_text("{not json", encoding="utf-8")  # a damaged record trusts nothing
    assert trust.untrusted_file(workspace) == file


def test_describe_shows_what_would_run(workspace: Path) -> None:
    file = write_settings(
        {
            "local": {"command": "node", "args": ["server.js", "--port", "1 2"], "cwd": "/srv"},
            "remote": {"url": "https://example.test/mcp", "type": "streamableHttp"},
            "off": {"command": "x", "disabled": True},
            "bad": {"url": "ftp://nope"},
        },
        workspace_settings_path(workspace),
    )
    lines = describe(file, file.read_bytes())
    assert lines[0] == "  local: runs node server.js --port '1 2' (in /srv)"
    assert lines[1] == "  remote: connects to https://example.test/mcp (streamableHttp)"
    assert lines[2] == "  off: runs x [disabled]"
    assert lines[3].startswith("  bad: invalid entry (") and "http" in lines[3]


async def test_the_hub_leaves_out_an_untrusted_project_file_and_follows_its_changes(
    isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    marker = tmp_path / "started.txt"
    write_settings({"glob": py_server("normal")})
    file = write_settings({"proj": _marked_server(marker)}, workspace_settings_path(workspace))
    trust = McpTrust(isolated_home)
    hub = McpHub(workspace=workspace, watch_interval=None, trusted=trust.is_trusted)
    try:
        await hub.start()
        assert [s.name for s in hub.servers()] == ["glob"]  # the global file is the user's own
        assert hub.untrusted_file == file and not marker.exists()
        assert "pycline mcp trust" in hub.settings_errors[-1]

        trust.trust(file)
        await hub.reload()
        assert {s.name: s.status for s in hub.servers()} == {
            "glob": "connected",
            "proj": "connected",
        }
        assert hub.untrusted_file is None and marker.read_text(encoding="utf-8") == "started\n"

        write_settings({"proj": _marked_server(marker), "more": {"command": "x"}}, file)
        await hub.reload()  # what the settings watcher does when the file changes
        assert [s.name for s in hub.servers()] == ["glob"] and hub.untrusted_file == file
    finally:
        await hub.close()


def test_headless_run_skips_untrusted_servers_until_pycline_mcp_trust(
    isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    marker = tmp_path / "started.txt"
    write_settings({"proj": _marked_server(marker)}, workspace_settings_path(workspace))
    script = script_file(tmp_path, [_shout("hi"), COMPLETE])
    args = ("run", "--provider", "scripted", "--script", str(script), "--yes", "shout")

    first = pycline(*args, home=isolated_home, cwd=workspace)
    assert first.returncode == 0, first.stderr
    assert "were not started" in first.stderr and "pycline mcp trust" in first.stderr
    assert not marker.exists()
    [folder] = (isolated_home / "tasks").iterdir()
    said = json.dumps(load_json(folder / "api_conversation_history.json"))
    assert "HI" not in said, said
    # With no MCP server started, the task is offered no MCP tool at all.
    assert "Unknown tool 'use_mcp_tool'" in said, said

    trusted = pycline("mcp", "trust", home=isolated_home, cwd=workspace)
    assert trusted.returncode == 0, trusted.stderr
    assert "proj: runs sh -c" in trusted.stdout

    second = pycline(*args, home=isolated_home, cwd=workspace)
    assert second.returncode == 0, second.stderr
    assert "were not started" not in second.stderr
    assert marker.read_text(encoding="utf-8") == "started\n"
    newest = max((isolated_home / "tasks").iterdir(), key=lambda p: p.stat().st_mtime_ns)
    assert "HI" in json.dumps(load_json(newest / "api_conversation_history.json"))


def test_project_edits_through_pycline_stay_trusted(isolated_home: Path, workspace: Path) -> None:
    add = ("mcp", "--project", "add", "p", "--", "node", "p.js")
    assert pycline(*add, home=isolated_home, cwd=workspace).returncode == 0
    assert McpTrust(isolated_home).untrusted_file(workspace) is None
    # A file the user never trusted is not trusted by an edit either.
    file = workspace_settings_path(workspace)
    write_settings({"x": {"command": "evil"}}, file)
    disable = ("mcp", "--project", "disable", "x")
    assert pycline(*disable, home=isolated_home, cwd=workspace).returncode == 0
    assert McpTrust(isolated_home).untrusted_file(workspace) == file


def test_the_interactive_session_asks_before_starting_project_servers(
    isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    marker = tmp_path / "started.txt"
    write_settings({"proj": _marked_server(marker)}, workspace_settings_path(workspace))
    script = script_file(tmp_path, [COMPLETE])
    cli = ["--provider", "scripted", "--script", str(script)]

    child = spawn(cli, isolated_home, workspace)
    child.expect(r"proj: runs sh -c")
    child.expect(r"Start them .*\[y/N\] ")
    child.sendline("n")
    child.expect("Task> ")
    child.sendeof()
    child.expect(pexpect.EOF)
    assert not marker.exists()

    child = spawn(cli, isolated_home, workspace)
    child.expect(r"Start them .*\[y/N\] ")
    child.sendline("y")
    child.expect("Task> ")
    child.sendeof()
    child.expect(pexpect.EOF)
    assert marker.read_text(encoding="utf-8") == "started\n"

    child = spawn(cli, isolated_home, workspace)  # trusted now: no question
    child.expect("Task> ")
    assert "Start them" not in (child.before or "")
    child.sendeof()
    child.expect(pexpect.EOF)
    assert marker.read_text(encoding="utf-8") == "started\nstarted\n"
