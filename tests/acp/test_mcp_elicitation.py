"""A server's form (elicitation) in an editor: pycline shows the form as the turn's message and
ends the turn; the editor's next prompt is the answer, which reaches the server (the real
tests/mcp/servers/asking.py over stdio) and its result the model."""

from __future__ import annotations

import sys
from pathlib import Path

from acp.schema import McpServerStdio

from pycline.storage.task_store import TaskStore
from tests.acp.harness import COMPLETE, RecordingClient, in_process, script_file, text
from tests.mcp.test_elicitation_front_ends import ORDER

ASKING = Path(__file__).resolve().parents[1] / "mcp" / "servers" / "asking.py"


async def test_the_form_is_the_turns_message_and_the_next_prompt_fills_it_in(
    tmp_path: Path, workspace: Path, isolated_home: Path
) -> None:
    script = script_file(tmp_path, ORDER, COMPLETE)
    client = RecordingClient(answers=["allow_once"])  # the MCP tool itself
    server = McpServerStdio(name="asking", command=sys.executable, args=[str(ASKING)], env=[])
    async with in_process(client, isolated_home, script) as (conn, _):
        await conn.initialize(protocol_version=1, client_capabilities=client.capabilities())
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[server])
        sid = session.session_id
        first = await conn.prompt(session_id=sid, prompt=text("order an ice cream"))
        assert first.stop_reason == "end_turn"
        shown = client.message_text()
        assert "The MCP server 'asking' asks: Which ice cream would you like?" in shown
        assert "- flavour (string, required)" in shown
        await conn.prompt(session_id=sid, prompt=text("flavour: mango; scoops: 1"))
    history = TaskStore(isolated_home).open(sid).load_api_history()
    assert any("accepted: 1 x mango" in m.text for m in history if m.role == "user")
