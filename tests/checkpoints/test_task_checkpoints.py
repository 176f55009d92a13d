"""Checkpoints made by the task loop (through the TaskBuilder), with real git."""

from __future__ import annotations

import asyncio
import json
import shutil
from collections.abc import AsyncIterator, Callable, Sequence
from pathlib import Path

import pytest

from pycline.app.builders.builder import TaskBuilder
from pycline.app.settings.config import ModelConfig
from pycline.checkpoints import Checkpoint, ShadowGit
from pycline.core.checkpointing import TaskCheckpoints
from pycline.core.task import Task, TaskSettings
from pycline.events import CheckpointCreated, Notice, RequestStarted, ToolStarted
from pycline.messages import Message, UiMessage
from pycline.parsing.native import ToolDefinition
from pycline.providers.base import StreamChunk
from pycline.providers.scripted import ScriptedProvider, ScriptedReply
from pycline.storage.task_store import TaskFolder, TaskStore
from pycline.testing import default_capabilities, task_for
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

    ui = TaskFolder(task.folder).load_ui_messages()
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

    made = [
        m.extra["lastCheckpointHash"]
        for m in _checkpoints(TaskFolder(task.folder).load_ui_messages())
    ]
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
    made = [
        m.extra["lastCheckpointHash"]
        for m in _checkpoints(TaskFolder(task.folder).load_ui_messages())
    ]
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
    assert _checkpoints(TaskFolder(task.folder).load_ui_messages()) == []


async def test_enable_checkpoints_false_turns_them_off(
    isolated_home: Path, workspace: Path
) -> None:
    _settings(isolated_home, {"enableCheckpoints": False})
    task = _task(isolated_home, workspace, [WRITE_A, complete()], RecordingHost())
    assert (await task.start("x")).completed
    assert _checkpoints(TaskFolder(task.folder).load_ui_messages()) == []
    assert not (isolated_home / "checkpoints").exists()


async def test_retention_keeps_the_newest_checkpoints_after_the_task(
    isolated_home: Path, workspace: Path
) -> None:
    _settings(isolated_home, {"checkpointRetention": 2})
    task = _task(isolated_home, workspace, [WRITE_A, WRITE_A, WRITE_A, complete()], RecordingHost())
    assert (await task.start("x")).completed
    made = [
        m.extra["lastCheckpointHash"]
        for m in _checkpoints(TaskFolder(task.folder).load_ui_messages())
    ]
    assert len(made) == 5
    listed = await ShadowGit(workspace, isolated_home).list()
    assert [c.commit for c in listed] == made[-2:]


# --- checkpoints made while the next request streams ------------------------------------------


class _SignallingProvider(ScriptedProvider):
    """A scripted model that says when each request reaches it (request n sets `sent[n]`)."""

    def __init__(self, *replies: str, on_send: Callable[[int], None] | None = None) -> None:
        super().__init__([ScriptedReply(text=r) for r in replies])
        self.sent = [asyncio.Event() for _ in range(len(replies) + 1)]
        self.on_send = on_send

    async def stream(
        self,
        system: str,
        messages: Sequence[Message],
        *,
        tools: Sequence[ToolDefinition] = (),
        temperature: float | None = None,
    ) -> AsyncIterator[StreamChunk]:
        if self.on_send is not None:
            self.on_send(len(self.requests) + 1)
        self.sent[len(self.requests) + 1].set()
        async for chunk in super().stream(system, messages, tools=tools, temperature=temperature):
            yield chunk


class _HeldTracker:
    """A checkpoint store whose commits after a change wait until a gate opens; start and
    completion checkpoints go through at once. `inner` does the real work (fake hashes without)."""

    def __init__(self, gate: asyncio.Event, inner: ShadowGit | None = None) -> None:
        self.gate = gate
        self.inner = inner
        self.made: list[str] = []
        self.held = False  # a commit waits at the gate

    async def commit(self, message: str) -> str:
        if "after write_to_file" in message:
            self.held = True
            await asyncio.wait_for(self.gate.wait(), 10)
            self.held = False
        commit = await self.inner.commit(message) if self.inner else f"{len(self.made):040x}"
        self.made.append(commit)
        return commit

    async def list(self) -> Sequence[Checkpoint]:
        return await self.inner.list() if self.inner else []

    async def prune(self, keep_last: int) -> int:
        return 0


def _held_task(
    home: Path,
    workspace: Path,
    provider: ScriptedProvider,
    tracker: _HeldTracker,
    checkpoints: TaskCheckpoints | None = None,
) -> tuple[Task, RecordingHost, TaskCheckpoints]:
    """A task whose checkpoints go to `tracker` (through `checkpoints`, when given)."""
    host = RecordingHost()
    checkpoints = checkpoints or TaskCheckpoints(tracker)
    settings = TaskSettings(approve_all_inside=True)
    task = task_for(
        home,
        workspace,
        provider,
        host,
        task_text="x",
        settings=settings,
        capabilities=[checkpoints, *default_capabilities(workspace, settings=settings)],
    )
    return task, host, checkpoints


async def test_the_next_request_is_sent_before_the_checkpoint_is_made(
    isolated_home: Path, workspace: Path
) -> None:
    provider = _SignallingProvider(WRITE_A, READ_A, complete())
    # The write's checkpoint is held until the second request reaches the model: taken in line,
    # it would never be released and the task would fail on the tracker's timeout.
    tracker = _HeldTracker(provider.sent[2])
    task, host, _ = _held_task(isolated_home, workspace, provider, tracker)
    assert (await task.start("x")).completed
    made = [e for e in host.events if isinstance(e, CheckpointCreated)]
    assert [e.label for e in made] == [
        "task start",
        "after write_to_file a.txt",
        "after attempt_completion",
    ]
    kinds = [e.kind for e in host.events]
    late = host.events.index(made[1])
    assert any(isinstance(e, RequestStarted) and e.index == 2 for e in host.events[:late]), (
        "the second request started after the checkpoint, not while it was taken"
    )
    assert kinds.index("tool_started", late) > late  # the next tool waited for it

    ui = TaskFolder(task.folder).load_ui_messages()
    write_call = next(e for e in host.events if isinstance(e, ToolStarted)).tool_call_id
    assert made[1].tool_call_id == write_call and made[0].tool_call_id == ""
    # Recorded at its own turn's end, not where the next turn stood when the commit was made.
    at = next(i for i, m in enumerate(ui) if m.extra.get("lastCheckpointHash") == made[1].commit
              and m.kind == "checkpoint_created")  # fmt: skip
    tool = next(m for m in ui if m.kind == "tool" and m.extra.get("toolCallId") == write_call)
    assert tool.extra["lastCheckpointHash"] == made[1].commit
    assert ui[at].extra["toolCallId"] == write_call
    assert ui[at - 1].kind == "tool_result" and ui.index(tool) < at
    assert ui[at].extra["conversationHistoryIndex"] == 1  # the write's reply
    assert all(m.kind != "api_req_started" for m in ui[ui.index(tool) + 1 : at])


async def test_a_checkpoint_made_in_the_background_restores_its_own_turn(
    isolated_home: Path, workspace: Path
) -> None:
    write(workspace / "a.txt", "old a\n")
    second = "<write_to_file>\n<path>a.txt</path>\n<content>\nnewer a\n</content>\n</write_to_file>"
    provider = _SignallingProvider(WRITE_A, second, complete())
    tracker = _HeldTracker(provider.sent[2], ShadowGit(workspace, isolated_home))
    task, host, _ = _held_task(isolated_home, workspace, provider, tracker)
    assert (await task.start("x")).completed
    assert (workspace / "a.txt").read_text(encoding="utf-8") == "newer a\n"
    made = [e.commit for e in host.events if isinstance(e, CheckpointCreated)]
    assert len(made) == 4  # start, each write, completion
    await ShadowGit(workspace, isolated_home).restore(made[1])
    assert (workspace / "a.txt").read_text(encoding="utf-8") == "new a\n"
    await ShadowGit(workspace, isolated_home).restore(made[0])
    assert (workspace / "a.txt").read_text(encoding="utf-8") == "old a\n"


async def test_a_cancelled_task_finishes_the_checkpoint_it_was_taking(
    isolated_home: Path, workspace: Path
) -> None:
    gate = asyncio.Event()
    provider = _SignallingProvider(WRITE_A, READ_A, complete())
    tracker = _HeldTracker(gate)
    task, _, checkpoints = _held_task(isolated_home, workspace, provider, tracker)
    running = asyncio.create_task(task.start("x"))
    await asyncio.wait_for(provider.sent[2].wait(), 10)
    assert checkpoints.pending
    running.cancel()
    gate.set()  # the commit may only finish now: the cancelled task must wait for it
    with pytest.raises(asyncio.CancelledError):
        await running
    assert len(tracker.made) == 2
    hashes = [
        m.extra.get("lastCheckpointHash")
        for m in _checkpoints(TaskFolder(task.folder).load_ui_messages())
    ]
    assert hashes == tracker.made


async def test_a_kill_while_a_checkpoint_is_taken_leaves_a_task_that_reads_and_resumes(
    isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    killed = tmp_path / "killed-home"
    task: Task | None = None

    def snapshot(request: int) -> None:
        # What a kill -9 leaves while the write's commit is still being made: the task's files
        # as the recorder wrote them (it flushes before each request).
        if request == 2 and task is not None:
            shutil.copytree(task.folder, killed / "tasks" / task.id)

    provider = _SignallingProvider(WRITE_A, READ_A, complete(), on_send=snapshot)
    task, _, _ = _held_task(isolated_home, workspace, provider, _HeldTracker(provider.sent[2]))
    assert (await task.start("x")).completed

    killed_folder = TaskStore(killed).open(task.id)
    # The commit being made when the process died is not in the log: no checkpoint without one.
    left = killed_folder.load_ui_messages()
    assert [m.extra["lastCheckpointHash"] for m in _checkpoints(left)] == [f"{0:040x}"]
    shown = killed_folder.load_events()
    assert [e.event.commit for e in shown if isinstance(e.event, CheckpointCreated)] == [
        f"{0:040x}"
    ]
    builder = TaskBuilder(killed, ModelConfig(provider="scripted"))
    resumed, run = builder.resume_task(
        task.id,
        RecordingHost(),
        workspace,
        TaskSettings(),
        provider=ScriptedProvider.of(complete()),
    )
    assert (await run()).completed
    assert (
        "lastCheckpointHash"
        in _checkpoints(TaskFolder(resumed.folder).load_ui_messages())[-1].extra
    )


class _Watched(TaskCheckpoints):
    """The hook, saying each time the task starts waiting for a held commit."""

    def __init__(self, tracker: _HeldTracker) -> None:
        super().__init__(tracker)
        self.tracker = tracker
        self.waits: asyncio.Queue[None] = asyncio.Queue()

    async def settle(self) -> None:
        if self.pending and self.tracker.held:
            self.waits.put_nowait(None)
        await super().settle()


async def test_a_task_cancelled_while_it_waits_for_a_checkpoint_still_records_it(
    isolated_home: Path, workspace: Path
) -> None:
    gate = asyncio.Event()
    provider = _SignallingProvider(WRITE_A, READ_A, complete())
    tracker = _HeldTracker(gate)
    hook = _Watched(tracker)
    task, host, _ = _held_task(isolated_home, workspace, provider, tracker, hook)
    running = asyncio.create_task(task.start("x"))
    await hook.waits.get()  # the read waits for the write's checkpoint
    running.cancel()
    again = asyncio.ensure_future(hook.waits.get())
    done, _ = await asyncio.wait({running, again}, return_when=asyncio.FIRST_COMPLETED)
    assert again in done, "the cancelled task ended without waiting for its checkpoint"
    gate.set()
    with pytest.raises(asyncio.CancelledError):
        await running
    kinds = [e.kind for e in host.events]
    assert kinds.count("checkpoint_created") == 2
    assert kinds.index("task_ended") > len(kinds) - 1 - kinds[::-1].index("checkpoint_created")
    hashes = [
        m.extra.get("lastCheckpointHash")
        for m in _checkpoints(TaskFolder(task.folder).load_ui_messages())
    ]
    assert hashes == tracker.made
