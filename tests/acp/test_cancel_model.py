"""session/cancel while the model's reply is awaited (a real provider against a loopback fake)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from pycline.acp.agent import PyclineAgent
from pycline.app.sessions.session import ConfigOverrides
from pycline.storage.task_store import TaskStore
from tests.acp.harness import RecordingClient, connect, start, text, wait_until
from tests.fakes.openai_server import FakeOpenAI, OpenAIReply
from tests.fakes.server import Stall


async def test_cancel_while_the_model_is_streaming_returns_cancelled_at_once(
    workspace: Path, isolated_home: Path
) -> None:
    (workspace / "a.txt").write_text("a\n", encoding="utf-8")
    first = OpenAIReply(text="Reading first.\n<read_file>\n<path>a.txt</path>\n</read_file>")
    with FakeOpenAI([first, Stall()]) as server:
        flags = ConfigOverrides(
            provider="openai", model="gpt-4o", base_url=server.base_url, api_key="sk-fake"
        )
        client = RecordingClient()
        async with connect(client, PyclineAgent(flags, isolated_home)) as (conn, _):
            sid = await start(conn, client, workspace)
            turn = asyncio.create_task(conn.prompt(session_id=sid, prompt=text("read a")))
            # The read is done: the next thing is the second request, which never answers.
            await wait_until(
                client,
                lambda: any(c.get("status") == "completed" for c in client.tool_calls().values()),
            )
            loop = asyncio.get_running_loop()
            began = loop.time()
            await conn.cancel(session_id=sid)
            response = await asyncio.wait_for(turn, 5)
            assert loop.time() - began < 1.0
    assert response.stop_reason == "cancelled"
    assert "Reading first." in client.message_text()
    assert TaskStore(isolated_home).open(sid).load_record().status == "cancelled"
