"""`pycline config allow`: rules the user adds let a headless run go ahead; files in the repository
cannot add any."""

from __future__ import annotations

import json
from pathlib import Path

import pexpect

from tests.cli.task_cli import COMPLETE, pycline, script_file
from tests.cli.test_interactive import spawn


def _approval_command(line: str) -> str:
    return (
        f"<execute_command>\n<command>{line}</command>\n"
        "<requires_approval>true</requires_approval>\n</execute_command>"
    )


def _run(home: Path, cwd: Path, tmp_path: Path) -> str:
    script = script_file(tmp_path, [_approval_command("touch made.txt"), COMPLETE])
    proc = pycline(
        "run", "--provider", "scripted", "--script", str(script), "go", home=home, cwd=cwd
    )
    # 4: the run refused an action that needed approval (pycline.app.services.exit_codes)
    assert proc.returncode in (0, 4), proc.stderr
    return proc.stdout


def test_a_rule_added_with_config_lets_a_headless_run_use_the_command(
    isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    added = pycline("config", "allow", "add", "touch", home=isolated_home, cwd=workspace)
    assert added.returncode == 0, added.stderr
    listed = pycline("config", "allow", "list", home=isolated_home, cwd=workspace)
    assert listed.stdout.splitlines()[1:] == ["touch"]
    _run(isolated_home, workspace, tmp_path)
    assert (workspace / "made.txt").exists()

    removed = pycline("config", "allow", "remove", "touch", home=isolated_home, cwd=workspace)
    assert removed.returncode == 0, removed.stderr
    (workspace / "made.txt").unlink()
    _run(isolated_home, workspace, tmp_path)
    assert not (workspace / "made.txt").exists()


def test_config_refuses_rules_that_would_allow_anything(
    isolated_home: Path, workspace: Path
) -> None:
    for rule in (["bash"], ["sudo", "rm"], ["npm test;", "rm"], ["--", "rm", "-rf", "/"]):
        proc = pycline("config", "allow", "add", *rule, home=isolated_home, cwd=workspace)
        assert proc.returncode == 2, rule
        assert "pycline:" in proc.stderr
    listed = pycline("config", "allow", "list", "--all", home=isolated_home, cwd=workspace)
    assert listed.stdout == ""


def test_a_repository_cannot_grant_itself_rules(
    isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    key = str(workspace.resolve())
    rules = {"version": 1, "workspaces": {key: ["touch"]}}
    local = workspace / ".pycline"
    (local / "settings").mkdir(parents=True)
    (local / "settings" / "command_rules.json").write_text(json.dumps(rules), encoding="utf-8")
    (local / "command_rules.json").write_text(json.dumps(rules), encoding="utf-8")
    out = _run(isolated_home, workspace, tmp_path)
    assert not (workspace / "made.txt").exists(), out
    listed = pycline("config", "allow", "list", "--all", home=isolated_home, cwd=workspace)
    assert listed.stdout == ""


def test_answering_always_at_the_prompt_runs_the_same_command_unasked_later(
    isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    replies = [_approval_command("echo one"), _approval_command("echo one more"), COMPLETE]
    script = script_file(tmp_path, replies)
    child = spawn(["--provider", "scripted", "--script", str(script)], isolated_home, workspace)
    child.expect("Task> ")
    child.sendline("echo things")
    child.expect(r"\[a\] always allow `echo one` here")
    child.sendline("a")
    child.expect("`echo one` is now always allowed in this workspace")
    assert child.expect([r"Allow execute_command", "one more"]) == 1
    child.expect("Press Enter to accept")
    child.sendline("")
    child.expect("Task> ")
    child.sendeof()
    child.expect(pexpect.EOF)
    child.close()
    listed = pycline("config", "allow", "list", home=isolated_home, cwd=workspace)
    assert listed.stdout.splitlines()[1:] == ["echo one"]
