"""session/request_permission: reject once, and "always" remembered per kind and prefix."""

from __future__ import annotations

import sys
from pathlib import Path

from tests.acp.harness import (
    COMPLETE,
    RecordingClient,
    command,
    in_process,
    script_file,
    start,
    text,
    write,
)


async def test_a_rejected_edit_is_not_written_and_the_model_is_told(
    tmp_path: Path, workspace: Path, isolated_home: Path
) -> None:
    script = script_file(tmp_path, write("notes.txt", "hello\n"), COMPLETE)
    client = RecordingClient(answers=["reject_once"])
    async with in_process(client, isolated_home, script) as (conn, _):
        sid = await start(conn, client, workspace)
        response = await conn.prompt(session_id=sid, prompt=text("write notes"))
    assert response.stop_reason == "end_turn"
    assert not (workspace / "notes.txt").exists()
    (call,) = client.tool_calls().values()
    assert call["status"] == "failed"
    # The proposal stays on show, with why it was not written.
    assert [c.type for c in call["content"]] == ["diff", "content"]
    assert "denied" in call["content"][1].content.text.lower()


async def test_always_allow_covers_later_edits_and_the_same_command_prefix_only(
    tmp_path: Path, workspace: Path, isolated_home: Path
) -> None:
    py = sys.executable
    script = script_file(
        tmp_path,
        write("a.txt", "a\n"),
        write("b.txt", "b\n"),
        command(f"{py} -c pass"),
        command(f"{py} -c pass"),
        command(f"{py} -V; echo chained"),
        COMPLETE,
    )
    client = RecordingClient(answers=["allow_always", "allow_always", "reject_once"])
    async with in_process(client, isolated_home, script) as (conn, _):
        sid = await start(conn, client, workspace)
        await conn.prompt(session_id=sid, prompt=text("go"))
    assert (workspace / "a.txt").is_file() and (workspace / "b.txt").is_file()
    asked = [(p[0].kind, p[0].title) for p in client.permissions]
    # One question for both edits, one for both identical commands, and the chained command
    # (shell syntax) is asked about although it starts with the same program.
    assert [kind for kind, _ in asked] == ["edit", "execute", "execute"]
    assert "chained" in asked[2][1]
    always = next(o for o in client.permissions[1][1] if o.kind == "allow_always")
    assert always.name == f"Always allow `{py}` commands"


async def test_reject_always_refuses_the_kind_without_asking_again(
    tmp_path: Path, workspace: Path, isolated_home: Path
) -> None:
    script = script_file(tmp_path, write("a.txt", "a\n"), write("b.txt", "b\n"), COMPLETE)
    client = RecordingClient(answers=["reject_always"])
    async with in_process(client, isolated_home, script) as (conn, _):
        sid = await start(conn, client, workspace)
        await conn.prompt(session_id=sid, prompt=text("go"))
    assert len(client.permissions) == 1
    assert not (workspace / "a.txt").exists() and not (workspace / "b.txt").exists()
    statuses = [c["status"] for c in client.tool_calls().values()]
    assert statuses == ["failed", "failed"]
