"""Cline's agent features through `pycline run` with a scripted model: workflows, the focus
chain, loop detection and spending caps, in XML and native tool-call formats."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.cli.test_headless import run_cli

DONE = {"tool_calls": [{"name": "attempt_completion", "arguments": {"result": "done"}}]}


def _run(home: Path, cwd: Path, replies: list[Any], text: str, *, fmt: str = "xml",
         settings: dict[str, Any] | None = None,
         yes: bool = True) -> subprocess.CompletedProcess[str]:  # fmt: skip
    (home / "settings").mkdir(parents=True, exist_ok=True)
    all_settings = {"toolCallFormat": fmt, **(settings or {})}
    (home / "settings" / "settings.json").write_text(json.dumps(all_settings), encoding="utf-8")
    script = home / "script.json"
    script.write_text(json.dumps(replies), encoding="utf-8")
    return run_cli(
        ["run", "--provider", "scripted", "--script", str(script), *(["--yes"] * yes), text],
        home=home,
        cwd=cwd,
    )


def _history(home: Path) -> list[dict[str, Any]]:
    (task,) = (home / "tasks").iterdir()
    data: list[dict[str, Any]] = json.loads(
        (task / "api_conversation_history.json").read_text(encoding="utf-8")
    )
    return data


def _texts(message: dict[str, Any]) -> str:
    parts = []
    for block in message["content"]:
        if block["type"] == "text":
            parts.append(block["text"])
        elif block["type"] == "tool_result":
            parts.extend(b["text"] for b in block["content"])
    return "\n".join(parts)


@pytest.mark.parametrize("fmt", ["xml", "native"])
def test_a_workflow_is_sent_as_explicit_instructions(
    isolated_home: Path, workspace: Path, fmt: str
) -> None:
    flows = workspace / ".clinerules" / "workflows"
    flows.mkdir(parents=True)
    (flows / "release.md").write_text("1. Bump the version\n2. Tag it", encoding="utf-8")
    proc = _run(isolated_home, workspace, [DONE], "/release.md for 2.0", fmt=fmt)
    assert proc.returncode == 0, proc.stderr
    first = _texts(_history(isolated_home)[0])
    assert first.startswith('<task>\n<explicit_instructions type="release.md">\n1. Bump')
    assert "</explicit_instructions>\nfor 2.0\n</task>" in first


@pytest.mark.parametrize("fmt", ["xml", "native"])
def test_task_progress_is_shown_kept_beside_the_task_and_reminded(
    isolated_home: Path, workspace: Path, fmt: str
) -> None:
    (workspace / "a.txt").write_text("alpha\n", encoding="utf-8")
    read = {"name": "read_file", "arguments": {"path": "a.txt",
            "task_progress": "- [x] read a.txt\n- [ ] finish"}}  # fmt: skip
    proc = _run(isolated_home, workspace, [{"tool_calls": [read]}, DONE], "read it", fmt=fmt)
    assert proc.returncode == 0, proc.stderr
    assert "progress 1/2 · finish" in proc.stdout
    (task,) = (isolated_home / "tasks").iterdir()
    saved = (task / f"focus_chain_taskid_{task.name}.md").read_text(encoding="utf-8")
    assert "- [x] read a.txt\n- [ ] finish" in saved
    history = _history(isolated_home)
    assert "# Task progress (recommended)" in _texts(history[0])  # no list yet at the start
    assert "# Task progress" not in _texts(history[2])  # just updated: no reminder


@pytest.mark.parametrize("fmt", ["xml", "native"])
def test_five_identical_calls_stop_a_headless_run_after_a_warning_at_three(
    isolated_home: Path, workspace: Path, fmt: str
) -> None:
    (workspace / "a.txt").write_text("alpha\n", encoding="utf-8")
    read = {"tool_calls": [{"name": "read_file", "arguments": {"path": "a.txt"}}]}
    proc = _run(isolated_home, workspace, [read] * 5 + [DONE], "loop", fmt=fmt)
    assert proc.returncode == 1
    last = proc.stderr.strip().splitlines()[-1]
    assert "read_file 5 times in a row with identical arguments" in last
    history = _history(isolated_home)
    results = [_texts(m) for m in history if m["role"] == "user"][1:]
    assert "[WARNING]" not in results[1] and "[WARNING]" in results[2]
    # The warning says the task again, with the way out of the loop.
    assert "The task is:\n<task>\nloop\n</task>" in results[2]
    assert "If it is done, call attempt_completion" in results[2]


def test_a_failed_call_sent_again_is_warned_at_its_second_time(
    isolated_home: Path, workspace: Path
) -> None:
    missing = {"tool_calls": [{"name": "read_file", "arguments": {"path": "nope.txt"}}]}
    (workspace / "a.txt").write_text("alpha\n", encoding="utf-8")
    found = {"tool_calls": [{"name": "read_file", "arguments": {"path": "a.txt"}}]}
    proc = _run(
        isolated_home, workspace, [missing, missing, found, found, DONE], "read", fmt="native"
    )
    assert proc.returncode == 0, proc.stderr
    results = [_texts(m) for m in _history(isolated_home) if m["role"] == "user"][1:]
    assert "[WARNING]" not in results[0]
    assert "same call as before (2 times in a row), and it failed the same way" in results[1]
    assert "The task is:\n<task>\nread\n</task>" in results[1]
    # A call that worked is warned only at its third time.
    assert "[WARNING]" not in results[3]


def test_a_token_cap_stops_a_headless_run_with_its_own_exit_code(
    isolated_home: Path, workspace: Path
) -> None:
    read = {"tool_calls": [{"name": "list_files", "arguments": {"path": "."}}]}
    proc = _run(
        isolated_home, workspace, [read, read, DONE], "list", settings={"maxTaskTokens": 50}
    )
    assert proc.returncode == 3
    assert "task budget" in proc.stdout and "/ 50 tokens" in proc.stdout
    (line,) = [x for x in proc.stderr.splitlines() if x.startswith("pycline:")]
    assert "task spending cap was reached" in line


def test_a_project_settings_file_may_not_lift_a_spending_cap(
    isolated_home: Path, workspace: Path
) -> None:
    (workspace / ".pycline").mkdir()
    (workspace / ".pycline" / "settings.json").write_text('{"maxTaskCost": 1000}', "utf-8")
    proc = _run(isolated_home, workspace, [DONE], "x")
    assert proc.returncode == 2
    assert "maxTaskCost" in proc.stderr


@pytest.mark.parametrize("fmt", ["xml", "native"])
def test_a_skill_is_loaded_on_demand_with_use_skill(
    isolated_home: Path, workspace: Path, fmt: str
) -> None:
    folder = workspace / ".claude" / "skills" / "notes"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(
        "---\nname: notes\ndescription: Write release notes\n---\nGroup changes by area.",
        encoding="utf-8",
    )
    use = {"tool_calls": [{"name": "use_skill", "arguments": {"skill_name": "notes"}}]}
    proc = _run(isolated_home, workspace, [use, DONE], "notes please", fmt=fmt)
    assert proc.returncode == 0, proc.stderr
    result = _texts(_history(isolated_home)[2])
    assert '# Skill "notes" is now active' in result and "Group changes by area." in result


def _hook(folder: Path, name: str, body: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(f"#!{sys.executable}\nimport json, sys\n{body}\n", encoding="utf-8")
    path.chmod(0o755)
    return path


def test_hooks_add_context_and_a_project_hook_runs_only_once_trusted(
    isolated_home: Path, workspace: Path
) -> None:
    (workspace / "a.txt").write_text("alpha\n", encoding="utf-8")
    _hook(isolated_home / "hooks", "PreToolUse",
          "print(json.dumps({'contextModification': 'POLICY: read-only today'}))")  # fmt: skip
    _hook(workspace / ".clinerules" / "hooks", "TaskStart", "print(json.dumps({'cancel': True}))")
    read = {"tool_calls": [{"name": "read_file", "arguments": {"path": "a.txt"}}]}
    proc = _run(isolated_home, workspace, [read, DONE], "read")
    assert proc.returncode == 0, proc.stderr
    assert "hooks (TaskStart) were not run" in proc.stdout
    result = _texts(_history(isolated_home)[2])
    assert '<hook_context source="PreToolUse" type="policy">\nPOLICY: read-only today' in result

    trust = run_cli(["hooks", "trust"], home=isolated_home, cwd=workspace)
    assert trust.returncode == 0, trust.stderr
    proc = run_cli(
        ["run", "--provider", "scripted", "--script", str(isolated_home / "script.json"), "x"],
        home=isolated_home,
        cwd=workspace,
    )
    assert proc.returncode == 1
    assert "The TaskStart hook cancelled the task." in proc.stderr


@pytest.mark.parametrize("fmt", ["xml", "native"])
def test_newrule_writes_a_clinerules_file_through_new_rule(
    isolated_home: Path, workspace: Path, fmt: str
) -> None:
    rule = {"name": "new_rule", "arguments": {
        "path": ".clinerules/style.md", "content": "## Brief overview\nUse tabs."}}  # fmt: skip
    outside = {"name": "new_rule", "arguments": {"path": "src/x.md", "content": "## Brief"}}
    replies = [{"tool_calls": [outside]}, {"tool_calls": [rule]}, DONE]
    proc = _run(isolated_home, workspace, replies, "/newrule about style", fmt=fmt)
    assert proc.returncode == 0, proc.stderr
    text = (workspace / ".clinerules" / "style.md").read_text(encoding="utf-8")
    assert text == "## Brief overview\nUse tabs.\n"
    assert not (workspace / "src").exists()
    history = _history(isolated_home)
    assert '<explicit_instructions type="newrule">' in _texts(history[0])
    assert "inside .clinerules/" in _texts(history[2])


@pytest.mark.parametrize("fmt", ["xml", "native"])
def test_condense_replaces_the_history_by_the_approved_summary(
    isolated_home: Path, workspace: Path, fmt: str
) -> None:
    (workspace / "a.txt").write_text("alpha\n", encoding="utf-8")
    read = {"tool_calls": [{"name": "read_file", "arguments": {"path": "a.txt"}}]}
    condense = {"tool_calls": [{"name": "condense", "arguments": {"context": "We read a.txt."}}]}
    proc = _run(isolated_home, workspace, [read, condense, DONE], "read /smol", fmt=fmt)
    assert proc.returncode == 0, proc.stderr
    history = _history(isolated_home)
    assert "<task>" in _texts(history[0]) and "alpha" not in json.dumps(history)
    assert "We read a.txt." in _texts(history[1])
    assert "Ask the user what to do next" in _texts(history[2])
    assert all(b["type"] != "tool_result" for b in history[2]["content"])


@pytest.mark.parametrize("fmt", ["xml", "native"])
def test_new_task_hands_over_to_a_fresh_task_with_only_the_context(
    isolated_home: Path, workspace: Path, fmt: str
) -> None:
    hand = {"tool_calls": [{"name": "new_task", "arguments": {"context": "Continue: add tests."}}]}
    proc = _run(isolated_home, workspace, [hand, DONE], "big job /newtask", fmt=fmt)
    assert proc.returncode == 0, proc.stderr
    firsts = []
    for task in (isolated_home / "tasks").iterdir():
        saved = json.loads((task / "api_conversation_history.json").read_text(encoding="utf-8"))
        firsts.append(_texts(saved[0]))
    assert len(firsts) == 2
    assert any(f.startswith("<task>\nContinue: add tests.\n</task>") for f in firsts)


@pytest.mark.parametrize("fmt", ["xml", "native"])
def test_subagents_research_in_parallel_and_their_cost_counts_for_the_parent(
    isolated_home: Path, workspace: Path, fmt: str
) -> None:
    (workspace / "a.txt").write_text("alpha\n", encoding="utf-8")
    spawn = {"tool_calls": [{"name": "use_subagents", "arguments": {
        "prompt_1": "What is in a.txt?", "prompt_2": "Which files exist?"}}]}  # fmt: skip
    report = {"tool_calls": [{"name": "attempt_completion", "arguments": {
        "result": "Found it.\nRelevant file paths: a.txt"}}]}  # fmt: skip
    proc = _run(
        isolated_home, workspace, [spawn, report, report, DONE], "research",
        fmt=fmt, settings={"subagentsEnabled": True},
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    history = _history(isolated_home)
    result = _texts(history[2])
    assert "Subagent results:" in result and "Succeeded: 2" in result
    assert "[1] COMPLETED - What is in a.txt?\nFound it." in result
    (task,) = (isolated_home / "tasks").iterdir()
    record = json.loads((task / "task_metadata.json").read_text(encoding="utf-8"))["record"]
    children = [
        json.loads((task / "subagents" / n / "task_metadata.json").read_text("utf-8"))["record"]
        for n in (f"{task.name}-sub1", f"{task.name}-sub2")
    ]
    spent_by_children = sum(c["tokens_in"] for c in children)
    assert all(c["tokens_in"] > 0 for c in children)
    assert record["tokens_in"] > spent_by_children  # the parent's own requests, plus theirs
    assert "sub-agent 2/2 completed" in proc.stdout
