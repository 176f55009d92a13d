"""Files and commands go through the editor when it offers fs/terminal, else stay local."""

from __future__ import annotations

import sys
from pathlib import Path

from tests.acp.harness import (
    COMPLETE,
    RecordingClient,
    command,
    in_process,
    read,
    replace,
    script_file,
    start,
    text,
)

PRINT = command(f"{sys.executable} -c \"print('from', 'the terminal')\"")


async def test_with_client_fs_and_terminal_the_editor_reads_writes_and_runs(
    tmp_path: Path, workspace: Path, isolated_home: Path
) -> None:
    target = workspace / "a.txt"
    target.write_text("on disk\n", encoding="utf-8")
    script = script_file(
        tmp_path, read("a.txt"), replace("a.txt", "on disk", "edited"), PRINT, COMPLETE
    )
    # The editor holds an unsaved change: the model must see the buffer, not the disk.
    client = RecordingClient(fs=True, terminal=True, buffers={str(target): "unsaved buffer\n"})
    async with in_process(client, isolated_home, script) as (conn, _):
        sid = await start(conn, client, workspace)
        await conn.prompt(session_id=sid, prompt=text("go"))
    assert client.reads == [str(target)]
    assert client.writes == [(str(target), "edited\n")]
    assert target.read_text(encoding="utf-8") == "edited\n"
    calls = list(client.tool_calls().values())
    read_result = calls[0]["content"][0].content.text
    assert "unsaved buffer" in read_result
    run = calls[2]
    assert [c.type for c in run["content"]] == ["terminal"]
    assert run["status"] == "completed"
    assert client.released == [run["content"][0].terminal_id]


async def test_without_client_capabilities_everything_runs_locally(
    tmp_path: Path, workspace: Path, isolated_home: Path
) -> None:
    target = workspace / "a.txt"
    target.write_text("on disk\n", encoding="utf-8")
    script = script_file(
        tmp_path, read("a.txt"), replace("a.txt", "on disk", "edited"), PRINT, COMPLETE
    )
    client = RecordingClient(fs=False, terminal=False)
    async with in_process(client, isolated_home, script) as (conn, _):
        sid = await start(conn, client, workspace)
        await conn.prompt(session_id=sid, prompt=text("go"))
    assert client.reads == [] and client.writes == [] and client.terminals == {}
    assert target.read_text(encoding="utf-8") == "edited\n"
    calls = list(client.tool_calls().values())
    assert "on disk" in calls[0]["content"][0].content.text
    assert "from the terminal" in calls[2]["content"][0].content.text


async def test_a_command_for_the_editors_terminal_gets_the_same_checks_as_a_local_one(
    tmp_path: Path, workspace: Path, isolated_home: Path
) -> None:
    # Marked safe by the model, but it writes outside the project: the user is asked, exactly
    # as for a local run, and a rejection runs nothing.
    outside = command("touch ../outside.txt", approval=False)
    script = script_file(tmp_path, outside, COMPLETE)
    client = RecordingClient(terminal=True, answers=["reject_once"])
    async with in_process(client, isolated_home, script) as (conn, _):
        sid = await start(conn, client, workspace)
        await conn.prompt(session_id=sid, prompt=text("go"))
    assert len(client.permissions) == 1
    assert client.terminals == {}
