"""A prompt the waiting task cannot take is refused in the editor's chat, and the session goes
on: the question still waits, and the next prompt answers it."""

from __future__ import annotations

from pathlib import Path

from pycline.storage.task_store import TaskStore
from tests.acp.harness import COMPLETE, RecordingClient, in_process, script_file, start, text


async def test_an_empty_reply_to_a_result_is_refused_and_the_next_prompt_is_taken(
    tmp_path: Path, workspace: Path, isolated_home: Path
) -> None:
    script = script_file(tmp_path, COMPLETE, COMPLETE)
    client = RecordingClient()
    async with in_process(client, isolated_home, script) as (conn, _):
        sid = await start(conn, client, workspace)
        await conn.prompt(session_id=sid, prompt=text("finish"))  # the result: waits for a reply
        refused = await conn.prompt(session_id=sid, prompt=text("   "))
        assert refused.stop_reason == "end_turn"
        assert "An answer needs an option or some text" in client.message_text()
        taken = await conn.prompt(session_id=sid, prompt=text("also add a test"))
        assert taken.stop_reason == "end_turn"
    history = TaskStore(isolated_home).open(sid).load_api_history()
    assert "also add a test" in history[-2].text
