"""An approved `new_task` continues in the editor's session as the new task, as in the terminal
and the web UI: the next prompt speaks to the new task."""

from __future__ import annotations

from pathlib import Path

from pycline.storage.task_store import TaskStore
from tests.acp.harness import COMPLETE, RecordingClient, in_process, script_file, start, text

NEW_TASK = "<new_task>\n<context>\nContinue: add the tests.\n</context>\n</new_task>"


async def test_an_approved_new_task_continues_in_the_same_session(
    tmp_path: Path, workspace: Path, isolated_home: Path
) -> None:
    script = script_file(tmp_path, NEW_TASK, COMPLETE, COMPLETE)
    client = RecordingClient(answers=["allow_once"])
    async with in_process(client, isolated_home, script) as (conn, _):
        sid = await start(conn, client, workspace)
        first = await conn.prompt(session_id=sid, prompt=text("big job /newtask"))
        assert first.stop_reason == "end_turn"
        assert [call.title for call, _ in client.permissions] == ["new task"]
        assert "All done." in client.message_text()  # the new task's result, in this turn
        titles = [u.title for u in client.of("session_info_update")]
        assert titles[-1] == "Continue: add the tests."
        second = await conn.prompt(session_id=sid, prompt=text("and the docs"))
        assert second.stop_reason == "end_turn"

    store = TaskStore(isolated_home)
    records = {r.id: r for r in store.index.list()}
    assert len(records) == 2 and sid in records
    [following] = [r for r in records.values() if r.id != sid]
    assert following.task == "Continue: add the tests."
    history = store.open(following.id).load_api_history()
    said = [m.text for m in history if m.role == "user"]
    assert said[0].startswith("<task>\nContinue: add the tests.") and "and the docs" in said[-1]
