"""Slash commands at the interactive prompts, typed in a real pseudo-terminal."""

from __future__ import annotations

import json
from pathlib import Path

import pexpect

from pycline.app.services import slash_commands as slash
from pycline.storage.task_store import TaskStore
from tests.cli.test_interactive import COMPLETE, WRITE, spawn


def _session(home: Path, cwd: Path, tmp_path: Path, replies: list[str]) -> pexpect.spawn:
    script = tmp_path / "s.json"
    script.write_text(json.dumps(replies), encoding="utf-8")
    return spawn(["--provider", "scripted", "--script", str(script)], home, cwd)


def _quit(child: pexpect.spawn) -> None:
    child.sendline("/exit")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def _tasks(home: Path) -> list[Path]:
    folder = home / "tasks"
    return [p for p in folder.iterdir() if p.is_dir()] if folder.is_dir() else []


def test_help_lists_every_command_and_the_workflows(
    isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    (workspace / ".clinerules" / "workflows").mkdir(parents=True)
    (workspace / ".clinerules" / "workflows" / "release.md").write_text("1. tag", encoding="utf-8")
    (isolated_home / "workflows").mkdir()
    (isolated_home / "workflows" / "triage.md").write_text("1. look", encoding="utf-8")
    child = _session(isolated_home, workspace, tmp_path, [])
    child.expect("Task> ")
    child.sendline("/help")
    for command in (*slash.BUILTIN, *slash.CLINE):
        child.expect_exact(command.usage)
    child.expect_exact("/release")
    child.expect_exact("/triage")
    child.expect("Task> ")
    _quit(child)


def test_an_unknown_command_suggests_the_nearest_and_starts_no_task(
    isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    child = _session(isolated_home, workspace, tmp_path, [COMPLETE])
    child.expect("Task> ")
    child.sendline("/hepl")
    child.expect_exact("Unknown command /hepl. Did you mean /help?")
    child.expect("Task> ")
    child.sendline("/compact")
    child.expect("Nothing to condense here")
    child.sendline("/cost")
    child.expect("No requests yet")
    child.sendline("/diff")
    child.expect("No task yet in this session")
    _quit(child)
    assert _tasks(isolated_home) == []


def test_plan_and_act_switch_the_prompt(
    isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    child = _session(isolated_home, workspace, tmp_path, [])
    child.expect("Task> ")
    child.sendline("/plan")
    child.expect("PLAN MODE")
    child.expect("Plan> ")
    child.sendline("/act")
    child.expect("ACT MODE")
    child.expect("Task> ")
    _quit(child)


def test_commands_during_and_after_a_task(
    isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    child = _session(isolated_home, workspace, tmp_path, [WRITE, COMPLETE])
    child.expect("Task> ")
    child.sendline("write hello")
    child.expect(r"Allow write_to_file for 'hello.txt'\? ")
    child.sendline("/ps")  # at a question: runs, then the question comes back
    child.expect("No background processes")
    child.expect(r"Allow write_to_file for 'hello.txt'\? ")
    child.sendline("/stop 3")
    child.expect("No background process 3")
    child.sendline("/undo")
    child.expect(r"Stop this task first")
    child.sendline("/resume")
    child.expect("this task first, then /resume")
    child.sendline("y")
    child.expect("Press Enter to accept")
    child.sendline("/cost")
    child.expect(r"Task \$0\.0000 · last request")
    child.sendline("/settings")
    child.expect("Act model:  scripted/scripted")
    child.expect("Auto-approved: ")
    child.sendline("/diff")
    child.expect(r"\+hello")
    child.expect("1 file changed")
    child.sendline("/new")  # accepts the result; back to the task prompt
    child.expect("Task> ")
    child.sendline("/history")
    child.expect("completed .* write hello")
    child.sendline("/undo")
    child.expect("Restored the workspace")
    child.expect("Restored the conversation")
    child.expect("Task> ")
    _quit(child)
    assert not (workspace / "hello.txt").exists()


def test_model_switches_act_and_plan_models_for_the_session(
    isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    child = _session(isolated_home, workspace, tmp_path, [])
    child.expect("Task> ")
    child.sendline("/model plan scripted/planner")
    child.expect_exact("Plan now use scripted/planner")
    child.sendline("/model")
    child.expect_exact("Act: scripted/scripted")
    child.expect_exact("Plan: scripted/planner")
    child.sendline("/model no-such-provider/x")
    child.expect_exact("Plan and Act now use scripted/no-such-provider/x")
    _quit(child)


def test_a_workflow_and_clines_commands_become_the_message(
    isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    (workspace / ".clinerules" / "workflows").mkdir(parents=True)
    (workspace / ".clinerules" / "workflows" / "release.md").write_text(
        "1. bump the version\n2. tag", encoding="utf-8"
    )
    child = _session(isolated_home, workspace, tmp_path, [COMPLETE, COMPLETE])
    child.expect("Task> ")
    child.sendline("/release 2.0")
    child.expect("Press Enter to accept")
    child.sendline("/clear")
    child.expect("Task> ")
    child.sendline("/newtask")
    child.expect("Press Enter to accept")
    child.sendline("")
    child.expect("Task> ")
    _quit(child)
    typed = {
        json.loads((t / "task_metadata.json").read_text(encoding="utf-8"))["record"]["task"]: t
        for t in _tasks(isolated_home)
    }
    assert sorted(typed) == ["/newtask", "/release 2.0"]
    # The agent core expands both, the workflow as Cline's own commands.
    first = TaskStore(isolated_home).open(typed["/release 2.0"].name).load_api_history()[0]
    assert '<explicit_instructions type="release.md">\n1. bump the version' in first.text
    assert "2.0" in first.text


def test_a_task_starting_with_an_absolute_path_is_not_a_command() -> None:
    assert slash.split("/etc/hosts has a wrong entry") is None
    assert slash.split("/stop 2") == ("stop", "2")
    assert slash.split("fix /help text") is None


def test_tab_candidates_complete_slash_words_only_at_the_start() -> None:
    from pycline.cli.completion import command_candidates

    names = ["help", "history", "diff"]
    assert command_candidates(names, "/h") == ["/help", "/history"]
    assert command_candidates(names, "/help me") == []
    assert command_candidates(names, "help") == []


def test_yes_approves_writes_inside_the_workspace_without_asking(
    isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    script = tmp_path / "s.json"
    script.write_text(json.dumps([WRITE, COMPLETE]), encoding="utf-8")
    child = spawn(
        ["--provider", "scripted", "--script", str(script), "--yes", "write hello"],
        isolated_home,
        workspace,
    )
    child.expect("Press Enter to accept")  # no approval question on the way
    child.sendline("")
    child.expect("Task> ")
    _quit(child)
    assert (workspace / "hello.txt").read_text(encoding="utf-8") == "hello\n"


def test_verify_holds_the_sessions_tasks_to_the_check(
    isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    check = "test -f hello.txt || { echo no-hello-$((6*7)); exit 3; }"
    child = _session(isolated_home, workspace, tmp_path, [COMPLETE, WRITE, COMPLETE])
    child.expect("Task> ")
    child.sendline(f"/verify {check}")
    child.expect_exact(f"Completion is verified by `{check}`")
    child.expect("Task> ")
    child.sendline("write hello")
    child.expect("no-hello-42")  # the first claim was checked, and sent back
    child.expect(r"Allow write_to_file for 'hello.txt'\? ")
    child.sendline("y")
    child.expect("Press Enter to accept")
    child.sendline("")
    child.expect("Task> ")
    child.sendline("/verify")
    child.expect_exact(f"Goal check: `{check}`")
    _quit(child)
    [task] = _tasks(isolated_home)
    assert TaskStore(isolated_home).open(task.name).load_record().goal == check
