"""An editor's session offers the same tools as every front end (the builder assembles them):
the workspace's skills load with `use_skill`, and sub-agents run, while the editor still sees
each call and may read, write and run commands itself."""

from __future__ import annotations

import json
from pathlib import Path

from pycline.storage.task_store import TaskStore
from tests.acp.harness import COMPLETE, RecordingClient, in_process, script_file, start, text

USE_SKILL = "<use_skill>\n<skill_name>notes</skill_name>\n</use_skill>"
SUBAGENTS = "<use_subagents>\n<prompt_1>What is in a.txt?</prompt_1>\n</use_subagents>"


def _skill(workspace: Path) -> None:
    folder = workspace / ".clinerules" / "skills" / "notes"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(
        "---\nname: notes\ndescription: Write release notes\n---\nGroup changes by area.",
        encoding="utf-8",
    )


async def test_a_use_skill_call_loads_the_workspace_skill(
    tmp_path: Path, workspace: Path, isolated_home: Path
) -> None:
    _skill(workspace)
    script = script_file(tmp_path, USE_SKILL, COMPLETE)
    client = RecordingClient(fs=True, terminal=True)
    async with in_process(client, isolated_home, script) as (conn, _):
        sid = await start(conn, client, workspace)
        response = await conn.prompt(session_id=sid, prompt=text("notes please"))
    assert response.stop_reason == "end_turn"
    history = TaskStore(isolated_home).open(sid).load_api_history()
    result = json.dumps([m.to_json() for m in history])
    assert "Unknown tool" not in result
    assert 'Skill \\"notes\\" is now active' in result and "Group changes by area." in result
    titles = [c.get("title", "") for c in client.tool_calls().values()]
    assert any("notes" in t for t in titles), titles  # the editor saw the call


async def test_sub_agents_run_in_an_editor_session(
    tmp_path: Path, workspace: Path, isolated_home: Path
) -> None:
    (workspace / "a.txt").write_text("alpha\n", encoding="utf-8")
    settings = isolated_home / "settings"
    settings.mkdir(parents=True, exist_ok=True)
    (settings / "settings.json").write_text(json.dumps({"subagentsEnabled": True}))
    report = "<attempt_completion>\n<result>a.txt holds alpha</result>\n</attempt_completion>"
    script = script_file(tmp_path, SUBAGENTS, report, COMPLETE)
    client = RecordingClient()
    async with in_process(client, isolated_home, script) as (conn, _):
        sid = await start(conn, client, workspace)
        response = await conn.prompt(session_id=sid, prompt=text("research"))
    assert response.stop_reason == "end_turn"
    history = TaskStore(isolated_home).open(sid).load_api_history()
    result = json.dumps([m.to_json() for m in history])
    assert "Unknown tool" not in result and "Succeeded: 1" in result
