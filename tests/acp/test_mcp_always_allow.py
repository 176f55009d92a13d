"""ACP "always allow" for an MCP tool covers that tool on that server only, and is kept.

Two real MCP servers (tests/mcp/servers/normal.py, named "memory" and "files"). The editor
chooses "Always allow" for memory's `shout`: files' `add` is still asked about, memory's `shout`
then runs unasked, and the choice is saved in the settings the way the terminal saves it
(the settings' `mcpAutoApprove` for that server), so later sessions keep it.
"""

from __future__ import annotations

from pathlib import Path

from pycline.app.settings.config import load_settings
from tests.acp.harness import COMPLETE, RecordingClient, in_process, script_file, start, text
from tests.mcp.conftest import py_server, write_settings


def _call(server: str, tool: str, arguments: str) -> str:
    return (
        f"<use_mcp_tool>\n<server_name>{server}</server_name>\n<tool_name>{tool}</tool_name>\n"
        f"<arguments>{arguments}</arguments>\n</use_mcp_tool>"
    )


async def test_always_allow_is_per_server_and_tool_and_saved(
    tmp_path: Path, workspace: Path, isolated_home: Path
) -> None:
    write_settings(
        {
            "memory": py_server("normal", env={"SERVER_NAME": "memory"}),
            "files": py_server("normal", env={"SERVER_NAME": "files"}),
        }
    )
    script = script_file(
        tmp_path,
        _call("memory", "shout", '{"text": "one"}'),
        _call("files", "add", '{"a": 1, "b": 2}'),
        _call("memory", "shout", '{"text": "two"}'),
        COMPLETE,
    )
    client = RecordingClient(answers=["allow_always", "reject_once"])
    async with in_process(client, isolated_home, script) as (conn, _):
        sid = await start(conn, client, workspace)
        await conn.prompt(session_id=sid, prompt=text("use the servers"))
    asked = [(call.title, [o.name for o in options]) for call, options in client.permissions]
    # Asked twice: memory's shout, then files' add (the "always" did not cover another server).
    assert len(asked) == 2, asked
    assert "Always allow shout (memory)" in asked[0][1]
    assert not any("other actions" in name for _, names in asked for name in names)
    results = [c for c in client.tool_calls().values() if c.get("status") == "completed"]
    assert len(results) == 2  # both shouts ran; the add was rejected
    # Saved where the terminal's "always allow" goes: the settings' per-server table.
    assert load_settings(isolated_home)["mcpAutoApprove"] == {"memory": ["shout"]}
