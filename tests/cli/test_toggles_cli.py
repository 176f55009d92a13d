"""Switching rules files and workflows off with `pycline rules|workflows`: the switches are the
user's (kept in pycline's home), reach the prompt, the `/` menu and the core's expansion, and a
repository cannot carry any."""

from __future__ import annotations

import json
from pathlib import Path

from pycline.app.services.slash_commands import registry
from pycline.app.settings.toggles import workflow_toggles
from tests.cli.test_agent_features import DONE, _history, _run, _texts
from tests.cli.test_headless import run_cli
from tests.fakes.openai_server import FakeOpenAI, OpenAIReply
from tests.fakes.server import FakeToolCall


def _flow(folder: Path, name: str, text: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(text, encoding="utf-8")


def _system_prompt(home: Path, cwd: Path) -> str:
    replies = [OpenAIReply(tool_calls=(FakeToolCall("attempt_completion", {"result": "ok"}),))]
    with FakeOpenAI(replies) as srv:
        proc = run_cli(
            ["run", "--provider", "openai", "--base-url", srv.base_url, "--api-key", "k",
             "--model", "gpt-5", "--yes", "go"],
            home=home, cwd=cwd,
        )  # fmt: skip
        requests = [r.body for r in srv.completions]
    assert proc.returncode == 0, proc.stderr
    content: str = requests[0]["messages"][0]["content"]
    return content


def test_a_disabled_workflow_leaves_the_menu_and_is_no_longer_expanded(
    isolated_home: Path, workspace: Path
) -> None:
    _flow(workspace / ".clinerules" / "workflows", "release.md", "1. Bump the version")
    _flow(isolated_home / "workflows", "deploy.md", "Ship it")
    names = {c.name for c in registry(workspace, isolated_home)}
    assert {"release", "deploy"} <= names

    off = run_cli(["workflows", "disable", "release"], home=isolated_home, cwd=workspace)
    assert off.returncode == 0, off.stderr
    names = {c.name for c in registry(workspace, isolated_home)}
    assert "release" not in names and "deploy" in names
    listed = run_cli(["workflows", "list"], home=isolated_home, cwd=workspace).stdout
    assert [line.split()[:3] for line in listed.splitlines()] == [
        ["off", "local", "release.md"],
        ["on", "global", "deploy.md"],
    ]

    proc = _run(isolated_home, workspace, [DONE], "/release for 2.0")
    assert proc.returncode == 0, proc.stderr
    first = _texts(_history(isolated_home)[0])
    assert "explicit_instructions" not in first and "Bump the version" not in first


def test_a_disabled_rules_file_leaves_the_system_prompt(
    isolated_home: Path, workspace: Path
) -> None:
    _flow(workspace / ".clinerules", "style.md", "Use tabs for indentation.")
    _flow(isolated_home / "rules", "safety.md", "Never push to main.")
    prompt = _system_prompt(isolated_home, workspace)
    assert "Use tabs for indentation." in prompt and "Never push to main." in prompt

    off = run_cli(["rules", "disable", ".clinerules/style.md"], home=isolated_home, cwd=workspace)
    assert off.returncode == 0, off.stderr
    prompt = _system_prompt(isolated_home, workspace)
    assert "Use tabs for indentation." not in prompt and "Never push to main." in prompt

    on = run_cli(["rules", "enable", ".clinerules/style.md"], home=isolated_home, cwd=workspace)
    assert on.returncode == 0, on.stderr
    assert "Use tabs for indentation." in _system_prompt(isolated_home, workspace)


def test_switching_an_unknown_file_fails_and_changes_nothing(
    isolated_home: Path, workspace: Path
) -> None:
    proc = run_cli(["rules", "disable", "nope.md"], home=isolated_home, cwd=workspace)
    assert proc.returncode == 1 and "no rules file called 'nope.md'" in proc.stderr
    assert not (isolated_home / "settings" / "toggles.json").exists()


def test_a_repository_cannot_switch_off_the_users_rules(
    isolated_home: Path, workspace: Path
) -> None:
    _flow(isolated_home / "rules", "safety.md", "Never push to main.")
    _flow(isolated_home / "workflows", "deploy.md", "Ship it")
    key = str(workspace.resolve())
    off = {"global": {"safety.md": False, "deploy.md": False}, "workspaces": {key: {}}}
    # The home's own file layout, copied into the repository: never read.
    _flow(workspace / ".pycline" / "settings", "toggles.json",
          json.dumps({"version": 1, "rules": off, "workflows": off}))  # fmt: skip
    assert "Never push to main." in _system_prompt(isolated_home, workspace)
    assert all(t.on for t in workflow_toggles(isolated_home, workspace))
    # Toggles in the project's settings file are refused, naming the key.
    for key_name in ("ruleToggles", "workflowToggles", "globalRulesToggles"):
        (workspace / ".pycline" / "settings.json").write_text(
            json.dumps({key_name: {"safety.md": False}}), encoding="utf-8"
        )
        proc = _run(isolated_home, workspace, [DONE], "go")
        assert proc.returncode != 0 and key_name in proc.stderr, proc.stderr
