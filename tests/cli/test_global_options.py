"""The options of every command (`--cwd`, the model flags, `--sandbox`, `--plan`, `-y`) work before
a subcommand's name as after it: `pycline --cwd ~/proj history` is `pycline history --cwd ~/proj`,
never a task whose text is "history"."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from pycline.app.services import global_options
from pycline.cli.main import COMMANDS
from pycline.main import command_parsers
from tests.cli.task_cli import COMPLETE, history, pycline, run_task

# The smallest arguments each command parses with (its required words).
SAMPLES: dict[str, list[str]] = {
    "run": ["do it"],
    "history": [],
    "resume": [],
    "mcp": ["list"],
    "hooks": ["list"],
    "rules": ["list"],
    "workflows": ["list"],
    "config": ["allow", "list"],
    "auth": ["openai"],
    "show": [],
    "export": [],
    "delete": ["1"],
    "favorite": ["1"],
    "checkpoints": [],
    "restore": ["1", "--workspace"],
    "diff": [],
    "setup": [],
    "acp": [],
    "ui": [],
    "worktree": ["list"],
    "batch": ["tasks.jsonl", "--out", "out.jsonl"],
    "tasks": [],
    "attach": ["bg-1"],
    "stop": ["bg-1"],
    "doctor": [],
    "completion": ["bash"],
}
GLOBALS = ["--cwd", "PLACE", "--sandbox=off", "--plan", "-y"]


def test_every_command_has_a_sample() -> None:
    assert set(SAMPLES) == set(COMMANDS)


def _parsed(
    args: list[str], folder: Path
) -> tuple[str, argparse.Namespace, global_options.Elsewhere]:
    words = [str(folder) if w == "PLACE" else w for w in args]
    found = global_options.split(words, COMMANDS)
    assert found is not None, words
    command, before, rest = found
    parser = command_parsers()[command]()
    own, elsewhere = global_options.arrange(before, rest, parser)
    return command, parser.parse_args(own), elsewhere


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_takes_the_global_options_before_or_after_its_name(
    command: str, tmp_path: Path
) -> None:
    before = _parsed([*GLOBALS, command, *SAMPLES[command]], tmp_path)
    after = _parsed([command, *SAMPLES[command], *GLOBALS], tmp_path)
    for name, ns, elsewhere in (before, after):
        assert name == command
        # The folder reaches the command: its own --cwd, or the process moves there.
        where = elsewhere.cwd or getattr(ns, "cwd", None)
        assert where is not None and Path(where) == tmp_path, (command, ns, elsewhere)
        assert getattr(ns, "sandbox", None) == "off" or elsewhere.sandbox == "off"


def test_a_command_that_runs_a_model_refuses_a_model_flag_it_cannot_use() -> None:
    # `pycline batch` starts tasks with the model flags it has; an API key it would drop is
    # said, not ignored.
    found = global_options.split(["--api-key", "k", "batch", "t.jsonl", "--out", "o"], COMMANDS)
    assert found is not None
    command, before, rest = found
    with pytest.raises(global_options.NotTaken, match=r"batch.*--api-key"):
        global_options.arrange(before, rest, command_parsers()[command]())


def test_words_that_are_not_a_command_stay_a_task() -> None:
    assert global_options.split(["--cwd", "x", "fix", "the", "history"], COMMANDS) is None
    assert global_options.split(["--worktree", "history"], COMMANDS) is None


def test_cwd_before_history_lists_that_folders_tasks_and_starts_none(
    isolated_home: Path, tmp_path: Path
) -> None:
    here, there = tmp_path / "here", tmp_path / "there"
    here.mkdir()
    there.mkdir()
    run_task(isolated_home, here, [COMPLETE], text="task in here", script_dir=tmp_path)
    run_task(isolated_home, there, [COMPLETE], text="task over there", script_dir=tmp_path)
    for args in (["--cwd", str(here), "history"], ["history", "--cwd", str(here)]):
        proc = pycline(*args, home=isolated_home, cwd=tmp_path)
        assert proc.returncode == 0, proc.stderr
        assert "task in here" in proc.stdout
        assert "task over there" not in proc.stdout
    assert len(history(isolated_home)) == 2  # no task named "history" was started


def test_cwd_before_config_allow_list_shows_that_folders_rules(
    isolated_home: Path, tmp_path: Path
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    added = pycline("config", "allow", "add", "npm", "test", "--cwd", str(project),
                    home=isolated_home, cwd=tmp_path)  # fmt: skip
    assert added.returncode == 0, added.stderr
    for args in (
        ["--cwd", str(project), "config", "allow", "list"],
        ["config", "allow", "list", "--cwd", str(project)],
    ):
        proc = pycline(*args, home=isolated_home, cwd=tmp_path)
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.splitlines() == [f"# {project.resolve()}", "npm test"]
    assert history(isolated_home) == []


def test_a_cwd_that_is_not_a_folder_is_said_for_any_command(
    isolated_home: Path, tmp_path: Path
) -> None:
    proc = pycline(
        "--cwd", str(tmp_path / "missing"), "checkpoints", home=isolated_home, cwd=tmp_path
    )
    assert proc.returncode == 2
    assert "missing: not a folder" in proc.stderr


def test_global_options_after_show_read_that_folders_latest_task(
    isolated_home: Path, tmp_path: Path
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    run_task(isolated_home, project, [COMPLETE], text="the project's task", script_dir=tmp_path)
    proc = pycline("show", "--cwd", str(project), home=isolated_home, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "the project's task" in proc.stdout
