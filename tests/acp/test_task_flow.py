"""A full task driven through ACP: read, edit (diff content), command, completion."""

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


async def test_a_full_task_streams_messages_tool_calls_with_diffs_and_ends_the_turn(
    tmp_path: Path, workspace: Path, isolated_home: Path
) -> None:
    (workspace / "app.py").write_text("port = 8000\n", encoding="utf-8")
    script = script_file(
        tmp_path,
        {"text": "Let me look.\n" + read("app.py"), "reasoning": "The port is in app.py."},
        "Changing the port.\n" + replace("app.py", "port = 8000", "port = 8080"),
        command(f"{sys.executable} -c \"print('ok', 6 * 7)\""),
        COMPLETE,
    )
    client = RecordingClient(answers=["allow_once", "allow_once"])
    async with in_process(client, isolated_home, script) as (conn, _):
        session_id = await start(conn, client, workspace)
        response = await conn.prompt(session_id=session_id, prompt=text("Use port 8080"))

    assert response.stop_reason == "end_turn"
    assert (workspace / "app.py").read_text(encoding="utf-8") == "port = 8080\n"
    assert "Let me look." in client.message_text()
    assert "All done." in client.message_text()
    assert client.of("agent_thought_chunk")
    calls = list(client.tool_calls().values())
    assert [c["kind"] for c in calls] == ["read", "edit", "execute"]
    assert all(c["status"] == "completed" for c in calls)
    read_call, edit_call, run_call = calls
    assert read_call["title"] == "Read app.py"
    assert read_call["locations"][0].path == str(workspace / "app.py")
    diff = edit_call["content"][0]
    assert diff.type == "diff"
    assert (diff.old_text, diff.new_text) == ("port = 8000\n", "port = 8080\n")
    assert diff.path == str(workspace / "app.py")
    assert "ok 42" in run_call["content"][0].content.text
    # The edit and the command asked; the read inside the workspace did not.
    assert [p[0].kind for p in client.permissions] == ["edit", "execute"]
    # Each question comes after the call (and the edit's diff) was shown.
    seen_before = client.updates[: client.asked_after[0]]
    shown = [u for u in seen_before if u.session_update == "tool_call_update" and u.content]
    assert any(u.content[0].type == "diff" for u in shown)
    kinds = {o.kind for o in client.permissions[0][1]}
    assert kinds == {"allow_once", "allow_always", "reject_once", "reject_always"}
    assert client.of("usage_update")
    assert response.usage is not None and response.usage.output_tokens > 0
