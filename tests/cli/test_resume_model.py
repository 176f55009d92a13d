"""Resuming talks to the model the task ran with, unless a flag names another; the recap says
which model that was."""

from __future__ import annotations

from pathlib import Path

import pexpect

from tests.cli.task_cli import COMPLETE, history, pycline
from tests.cli.test_interactive import spawn
from tests.fakes.openai_server import FakeOpenAI


def _configure(home: Path, cwd: Path, **values: str) -> None:
    for key, value in values.items():
        proc = pycline("config", "set", key, value, home=home, cwd=cwd)
        assert proc.returncode == 0, proc.stderr


def test_resume_uses_the_model_the_task_ran_with_unless_a_flag_says_otherwise(
    isolated_home: Path, workspace: Path
) -> None:
    with FakeOpenAI([COMPLETE, COMPLETE, COMPLETE, COMPLETE]) as server:
        _configure(isolated_home, workspace, provider="openai", baseUrl=server.base_url)
        _configure(isolated_home, workspace, model="model-a")
        first = pycline("run", "--api-key", "k", "go", home=isolated_home, cwd=workspace)
        assert first.returncode == 0, first.stderr
        [task] = history(isolated_home)
        _configure(isolated_home, workspace, model="model-b")  # the settings moved on

        child = spawn(["resume", task["id"], "--api-key", "k"], isolated_home, workspace)
        child.expect("ran with openai/model-a")
        child.expect("Type a new message to continue it")
        child.sendline("once more")
        child.expect("Press Enter to accept")
        child.sendline("")
        child.expect(pexpect.EOF)
        child.close()
        assert child.exitstatus == 0

        headless = pycline(
            "resume", task["id"], "--headless", "--api-key", "k", home=isolated_home, cwd=workspace
        )
        assert headless.returncode == 0, headless.stderr
        chosen = pycline(
            "resume", task["id"], "--headless", "--api-key", "k", "--model", "model-c",
            home=isolated_home, cwd=workspace,
        )  # fmt: skip
        assert chosen.returncode == 0, chosen.stderr
        models = [r.body["model"] for r in server.completions]
    assert models == ["model-a", "model-a", "model-a", "model-c"]
    [task] = history(isolated_home)
    assert task["model"] == "model-c"  # the record says what it runs with now
