"""`/verify CMD` in an editor: the session's task is held to the check, and the editor is shown
each check as an `execute` tool call with its output and result."""

from __future__ import annotations

from pathlib import Path

from tests.acp.harness import COMPLETE, RecordingClient, in_process, script_file, start, text, write

CHECK = "test -f ok.txt && echo check-$((6*7))-passed || { echo no-ok-$((6*7)); exit 3; }"


async def test_verify_holds_the_editors_task_to_the_check_and_shows_each_check(
    tmp_path: Path, workspace: Path, isolated_home: Path
) -> None:
    script = script_file(tmp_path, COMPLETE, write("ok.txt", "ok"), COMPLETE)
    client = RecordingClient(answers=["allow_once"])
    async with in_process(client, isolated_home, script) as (conn, _):
        session_id = await start(conn, client, workspace)
        set_goal = await conn.prompt(session_id=session_id, prompt=text(f"/verify {CHECK}"))
        assert set_goal.stop_reason == "end_turn"
        response = await conn.prompt(session_id=session_id, prompt=text("make ok.txt"))
    assert response.stop_reason == "end_turn"
    assert f"Completion is verified by `{CHECK}`" in client.message_text()
    assert (workspace / "ok.txt").is_file()
    checks = [c for c in client.tool_calls().values() if c.get("title", "").startswith("Verify:")]
    assert [c["status"] for c in checks] == ["failed", "completed"]
    assert all(c["kind"] == "execute" for c in checks)
    shown = [str(c["content"]) for c in checks]
    assert "no-ok-42" in shown[0] and "check-42-passed" in shown[1]
