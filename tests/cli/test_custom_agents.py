"""Custom agents (`PYCLINE_HOME/agents/*.yaml`) through `pycline run`: each one a
`use_subagent_<name>` tool replacing use_subagents, run read-only with its own instructions,
tools and model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pycline.cli.screen import subagent_line
from pycline.events import SubagentProgress
from pycline.testing import complete
from pycline.workspace.agents import discover_agents
from tests.cli.test_agent_features import DONE, _history, _run, _texts
from tests.cli.test_headless import run_cli
from tests.fakes.openai_server import FakeOpenAI, OpenAIReply
from tests.fakes.server import FakeToolCall

SCOUT = """---
name: Scout
description: Finds where things are in the code
modelId: gpt-4o-mini
tools: list_files, write_to_file
---
You are Scout. Answer in one line.
"""


def _agent(home: Path, text: str = SCOUT, name: str = "scout.yaml") -> None:
    (home / "agents").mkdir(parents=True, exist_ok=True)
    (home / "agents" / name).write_text(text, encoding="utf-8")


def test_agent_files_are_read_with_their_front_matter(tmp_path: Path) -> None:
    _agent(tmp_path, name="scout.yaml")
    _agent(tmp_path, "---\nname: Doc Writer\ndescription: d\nskills: [notes]\n---\n", "b.yml")
    _agent(tmp_path, "---\nname: nodesc\n---\nbody", "c.yaml")
    _agent(tmp_path, "name: x\ndescription: no front matter", "d.yaml")
    _agent(tmp_path, SCOUT, "e.txt")
    writer, scout = discover_agents([tmp_path / "agents"])  # by file name
    assert scout.tool_name == "use_subagent_scout" and scout.model_id == "gpt-4o-mini"
    assert scout.tools == {"list_files", "write_to_file"}
    assert scout.instructions == "You are Scout. Answer in one line."
    assert writer.tool_name == "use_subagent_doc_writer" and writer.skills == ("notes",)
    assert writer.tools is None and writer.model_id is None


@pytest.mark.parametrize("fmt", ["xml", "native"])
def test_a_custom_agent_replaces_use_subagents_and_keeps_to_read_only_tools(
    isolated_home: Path, workspace: Path, fmt: str
) -> None:
    _agent(isolated_home)
    (workspace / "a.txt").write_text("alpha\n", encoding="utf-8")
    call = {"tool_calls": [{"name": "use_subagent_scout", "arguments": {"prompt": "Find a.txt"}}]}
    write = {"tool_calls": [{"name": "write_to_file", "arguments": {"path": "b.txt",
             "content": "x"}}]}  # fmt: skip
    read = {"tool_calls": [{"name": "read_file", "arguments": {"path": "a.txt"}}]}
    report = {"tool_calls": [{"name": "attempt_completion", "arguments": {
        "result": "a.txt is at the root"}}]}  # fmt: skip
    proc = _run(
        isolated_home, workspace, [call, write, read, report, DONE], "where is a.txt?", fmt=fmt,
        settings={"subagentsEnabled": True},
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert not (workspace / "b.txt").exists()  # listed in its tools, but it writes: never given
    history = _history(isolated_home)
    result = _texts(history[2])
    assert "[1] COMPLETED - Find a.txt\na.txt is at the root" in result
    assert "sub-agent Scout 1/1 completed" in proc.stdout
    (task,) = (isolated_home / "tasks").iterdir()
    child = task / "subagents" / f"{task.name}-sub1" / "api_conversation_history.json"
    child_history = json.loads(child.read_text(encoding="utf-8"))
    child_results = [_texts(m) for m in child_history if m["role"] == "user"][1:]
    assert all("alpha" not in r for r in child_results)  # read_file is not among its tools


def test_a_custom_agent_runs_on_its_own_model_with_its_instructions(
    isolated_home: Path, workspace: Path
) -> None:
    _agent(isolated_home)
    (isolated_home / "settings").mkdir(parents=True, exist_ok=True)
    (isolated_home / "settings" / "settings.json").write_text(
        json.dumps({"subagentsEnabled": True}), encoding="utf-8"
    )
    replies = [
        OpenAIReply(tool_calls=(FakeToolCall("use_subagent_scout", {"prompt": "Find a.txt"}),)),
        # gpt-4o-mini calls tools in XML (the catalogue does not mark it for native calls).
        OpenAIReply(text=complete("at the root")),
        OpenAIReply(tool_calls=(FakeToolCall("attempt_completion", {"result": "done"}),)),
    ]
    with FakeOpenAI(replies) as srv:
        proc = run_cli(
            ["run", "--provider", "openai", "--base-url", srv.base_url, "--api-key", "k",
             "--model", "gpt-5", "--yes", "where is a.txt?"],
            home=isolated_home, cwd=workspace,
        )  # fmt: skip
        requests = [r.body for r in srv.completions]
    assert proc.returncode == 0, proc.stderr
    assert [r["model"] for r in requests] == ["gpt-5", "gpt-4o-mini", "gpt-5"]
    names = {t["function"]["name"] for t in requests[0]["tools"]}
    assert "use_subagent_scout" in names and "use_subagents" not in names
    child_system = requests[1]["messages"][0]["content"]
    assert "# Agent: Scout\nYou are Scout. Answer in one line." in child_system
    # Its prompt documents its own tools: the read-only ones it lists, and the report.
    assert "tools" not in requests[1]
    assert "<list_files>" in child_system and "<attempt_completion>" in child_system
    assert "<write_to_file>" not in child_system and "<read_file>" not in child_system


def test_the_terminal_shows_one_line_per_subagent_step() -> None:
    step = SubagentProgress(2, 3, "p", "running", "read_file a.txt", 1200, 30, 0.0042,
                            child_task_id="t-sub2", agent="Scout", tool_calls=1)  # fmt: skip
    assert subagent_line(step) == (
        "sub-agent Scout 2/3 running · read_file a.txt (1,230 tokens, $0.0042)"
    )


def test_a_custom_agent_loads_only_the_skills_it_names(
    isolated_home: Path, workspace: Path
) -> None:
    _agent(isolated_home, "---\nname: writer\ndescription: Writes notes\nskills: [notes]\n---\n")
    for name in ("notes", "secret"):
        folder = workspace / ".claude" / "skills" / name
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_text(
            f"---\nname: {name}\ndescription: the {name} skill\n---\nBody of {name}.",
            encoding="utf-8",
        )
    call = {"tool_calls": [{"name": "use_subagent_writer", "arguments": {"prompt": "Write"}}]}
    replies = [
        call,
        {"tool_calls": [{"name": "use_skill", "arguments": {"skill_name": "secret"}}]},
        {"tool_calls": [{"name": "use_skill", "arguments": {"skill_name": "notes"}}]},
        {"tool_calls": [{"name": "attempt_completion", "arguments": {"result": "written"}}]},
        DONE,
    ]
    proc = _run(isolated_home, workspace, replies, "notes", settings={"subagentsEnabled": True})
    assert proc.returncode == 0, proc.stderr
    (task,) = (isolated_home / "tasks").iterdir()
    child = task / "subagents" / f"{task.name}-sub1" / "api_conversation_history.json"
    results = [_texts(m) for m in json.loads(child.read_text("utf-8")) if m["role"] == "user"]
    assert "Unknown skill 'secret'. Available skills: notes." in results[1]
    assert "Body of secret" not in "".join(results) and "Body of notes." in results[2]
