"""Checkpoints made by the task loop (through the TaskBuilder), with real git."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pycline.app.builder import TaskBuilder
from pycline.app.config import ModelConfig
from pycline.checkpoints import ShadowGit
from pycline.core.task import Task, TaskSettings
from pycline.events import (
    CheckpointCreated,
    Notice,
)
from pycline.messages import UiMessage
from pycline.providers.scripted import ScriptedProvider
from tests.checkpoints.helpers import git_dirs_fingerprint, make_repo, worktree_state, write
from tests.core.harness import RecordingHost, complete

WRITE_A = "<write_to_file>\n<path>a.txt</path>\n<content>\nnew a\n</content>\n</write_to_file>"
READ_A = "<read_file>\n<path>a.txt</path>\n</read_file>"
COMMAND = (
    "<execute_command>\n<command>chmod +x run.sh && rm old.txt</command>\n"
    "<requires_approval>false</requires_approval>\n</execute_command>"
)


def _settings(home: Path, data: dict[str, object]) -> None:
    write(home / "settings" / "settings.json", json.dumps(data))


def _task(home: Path, workspace: Path, replies: list[str], host: RecordingHost) -> Task:
    builder = TaskBuilder(home, ModelConfig(provider="scripted"))
    return builder.new_task(
        "change things",
        host,
        workspace,
        TaskSettings(approve_all_inside=True),
        provider=ScriptedProvider.of(*replies),
    )


def _checkpoints(messages: list[UiMessage]) -> list[UiMessage]:
    return [m for m in messages if m.kind == "checkpoint_created"]


async def test_checkpoint_after_start_each_changing_turn_and_completion(
    isolated_home: Path, workspace: Path
) -> None:
    write(workspace / "run.sh", "echo hi\n")
    write(workspace / "old.txt", "old\n")
    host = RecordingHost()
    task = _task(isolated_home, workspace, [WRITE_A, READ_A, COMMAND, complete()], host)
    outcome = await task.start("change things")
    assert outcome.completed

    ui = task.folder.load_ui_messages()
    made = _checkpoints(ui)
    # task start, write_to_file, execute_command, attempt_completion; read_file changes nothing.
    assert len(made) == 4
    assert [m.extra["conversationHistoryIndex"] for m in made] == [-1, 1, 5, 7]
    hashes = [m.extra["lastCheckpointHash"] for m in made]
    events = [e for e in host.events if isinstance(e, CheckpointCreated)]
    assert [e.commit for e in events] == hashes
    assert [e.label for e in events] == [
        "task start",
        "after write_to_file a.txt",
        "after execute_command chmod +x run.sh && rm old.txt",
        "after attempt_completion",
    ]
    # Like Cline, the turn's tool message carries the hash of the checkpoint that followed it.
    tagged = [m for m in ui if m.kind != "checkpoint_created" and "lastCheckpointHash" in m.extra]
    assert [(m.kind, m.extra["lastCheckpointHash"]) for m in tagged] == [
        ("tool", hashes[1]),
        ("tool", hashes[2]),
        ("completion_result", hashes[3]),
    ]
    listed = await ShadowGit(workspace, isolated_home).list()
    assert [c.commit for c in listed] == hashes
    assert all(c.message.startswith(f"{task.id}: ") for c in listed)


async def test_checkpoints_restore_each_turn_exactly(isolated_home: Path, workspace: Path) -> None:
    write(workspace / "run.sh", "echo hi\n")
    write(workspace / "old.txt", "old\n")
    write(workspace / "a.txt", "old a\n")
    before = worktree_state(workspace)
    task = _task(isolated_home, workspace, [WRITE_A, COMMAND, complete()], RecordingHost())
    assert (await task.start("x")).completed
    after = worktree_state(workspace)
    assert after["run.sh"][1] & 0o111 and "old.txt" not in after

    made = [m.extra["lastCheckpointHash"] for m in _checkpoints(task.folder.load_ui_messages())]
    tracker = ShadowGit(workspace, isolated_home)
    await tracker.restore(made[0])
    assert worktree_state(workspace) == before
    await tracker.restore(made[1])
    middle = worktree_state(workspace)
    assert middle["a.txt"][2] == b"new a\n" and "old.txt" in middle
    assert not middle["run.sh"][1] & 0o111
    await tracker.restore(made[-1])
    assert worktree_state(workspace) == after


async def test_user_and_nested_git_folders_are_untouched_by_a_task(
    isolated_home: Path, workspace: Path
) -> None:
    make_repo(workspace, {"README.md": "hi\n", "old.txt": "old\n", "run.sh": "echo\n"})
    make_repo(workspace / "vendor" / "lib", {"lib.py": "x = 1\n"})
    prints = git_dirs_fingerprint(workspace)
    nested_write = (
        "<write_to_file>\n<path>vendor/lib/lib.py</path>\n<content>\nx = 2\n</content>\n"
        "</write_to_file>"
    )
    task = _task(
        isolated_home, workspace, [WRITE_A, nested_write, COMMAND, complete()], RecordingHost()
    )
    assert (await task.start("x")).completed
    made = [m.extra["lastCheckpointHash"] for m in _checkpoints(task.folder.load_ui_messages())]
    tracker = ShadowGit(workspace, isolated_home)
    await tracker.diff(made[0])
    await tracker.restore(made[0])
    assert (workspace / "old.txt").read_text(encoding="utf-8") == "old\n"
    assert git_dirs_fingerprint(workspace) == prints
    assert not (workspace / ".pycline").exists()


async def test_failing_checkpoints_become_one_notice_and_the_task_goes_on(
    isolated_home: Path, workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    empty = tmp_path / "no-git-here"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    host = RecordingHost()
    task = _task(isolated_home, workspace, [WRITE_A, WRITE_A, complete()], host)
    outcome = await task.start("x")
    assert outcome.completed
    assert (workspace / "a.txt").read_text(encoding="utf-8") == "new a\n"
    notices = [e.text for e in host.events if isinstance(e, Notice) and "Checkpoints" in e.text]
    assert len(notices) == 1 and "git" in notices[0]
    assert _checkpoints(task.folder.load_ui_messages()) == []


async def test_enable_checkpoints_false_turns_them_off(
    isolated_home: Path, workspace: Path
) -> None:
    _settings(isolated_home, {"enableCheckpoints": False})
    task = _task(isolated_home, workspace, [WRITE_A, complete()], RecordingHost())
    assert (await task.start("x")).completed
    assert _checkpoints(task.folder.load_ui_messages()) == []
    assert not (isolated_home / "checkpoints").exists()


async def test_retention_keeps_the_newest_checkpoints_after_the_task(
    isolated_home: Path, workspace: Path
) -> None:
    _settings(isolated_home, {"checkpointRetention": 2})
    task = _task(isolated_home, workspace, [WRITE_A, WRITE_A, WRITE_A, complete()], RecordingHost())
    assert (await task.start("x")).completed
    made = [m.extra["lastCheckpointHash"] for m in _checkpoints(task.folder.load_ui_messages())]
    assert len(made) == 5
    listed = await ShadowGit(workspace, isolated_home).list()
    assert [c.commit for c in listed] == made[-2:]
