"""`kill -9` at several points of a real `pycline run`, then `pycline resume --yes` finishes it.

Synchronisation is on what the process reports (its JSON event stream), on a file the blocking
command writes, and on the fake model server seeing a request: never on sleeps.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.cli.task_cli import (
    COMPLETE,
    cli_env,
    command,
    load_json,
    pycline,
    saved_history,
    script_file,
    write_file,
)
from tests.fakes.openai_server import FakeOpenAI
from tests.fakes.server import Planned, RecordedRequest, Stall

WAIT = 60.0


def _blocker(pid_file: Path) -> str:
    # Records its pid (so the test can stop it: pycline's kill -9 does not reach it), says READY,
    # then blocks until killed.
    return command(f"echo $$ > {pid_file}; echo READY; exec sleep 300")


def _replies(blocker: str) -> list[str]:
    return [
        write_file("a.txt", "a\n"),
        write_file("b.txt", "b\n"),
        blocker,
        write_file("c.txt", "c\n"),
        COMPLETE,
    ]


class Run:
    """A `pycline run --json --yes` child whose events are read on a thread into a queue."""

    def __init__(self, home: Path, cwd: Path, args: list[str]) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "pycline", "run", "--json", "--yes", *args],
            cwd=cwd,
            env=cli_env(home),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.seen: list[dict[str, Any]] = []
        self._lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self._lines.put(line)
        self._lines.put(None)

    def wait_for(self, match: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        while True:
            line = self._lines.get(timeout=WAIT)
            if line is None:
                assert self.proc.stderr is not None
                raise AssertionError(f"pycline exited early: {self.proc.stderr.read()}")
            event = json.loads(line)
            self.seen.append(event)
            if match(event):
                return event

    def kill9(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        assert self.proc.wait(WAIT) == -signal.SIGKILL

    def count(self, kind: str) -> int:
        return sum(1 for e in self.seen if e.get("kind") == kind)


@contextlib.contextmanager
def _stop_blocker(pid_file: Path) -> Iterator[None]:
    try:
        yield
    finally:
        with contextlib.suppress(FileNotFoundError, ValueError, ProcessLookupError):
            os.kill(int(pid_file.read_text(encoding="utf-8")), signal.SIGKILL)


def _nth(kind: str, n: int) -> Callable[[dict[str, Any]], bool]:
    counter = {"n": 0}

    def match(event: dict[str, Any]) -> bool:
        if event.get("kind") == kind:
            counter["n"] += 1
        return counter["n"] >= n

    return match


def _ready(event: dict[str, Any]) -> bool:
    return event.get("kind") == "tool_output" and "READY" in str(event.get("text"))


KILL_POINTS: dict[str, Callable[[], Callable[[dict[str, Any]], bool]]] = {
    "after-first-tool": lambda: _nth("tool_finished", 1),
    "at-second-request": lambda: _nth("request_started", 2),
    "after-third-checkpoint": lambda: _nth("checkpoint_created", 3),
    "after-third-usage": lambda: _nth("usage", 3),
    "during-blocking-command": lambda: _ready,
}


def _resume(
    home: Path, cwd: Path, replies: list[str], folder: Path
) -> subprocess.CompletedProcess[str]:
    script = script_file(folder, replies, "resume.json")
    return pycline(
        "resume", "--provider", "scripted", "--script", str(script), "--yes", home=home, cwd=cwd
    )


def _texts(message: dict[str, Any]) -> list[str]:
    return [str(block["text"]) for block in message["content"]]


@pytest.mark.parametrize("point", list(KILL_POINTS))
def test_kill_9_then_resume_completes_the_task(
    point: str, isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    pid_file = workspace / "blocker.pid"  # inside: --yes never approves writing outside
    replies = _replies(_blocker(pid_file))
    script = script_file(tmp_path, replies)
    with _stop_blocker(pid_file):
        run = Run(
            isolated_home,
            workspace,
            # The blocker must outlive pycline's kill -9, which a sandbox's pid namespace forbids.
            ["--provider", "scripted", "--script", str(script), "--sandbox", "off", "make abc"],
        )
        run.wait_for(KILL_POINTS[point]())
        run.kill9()

    [folder] = (isolated_home / "tasks").iterdir()
    saved = saved_history(folder)
    assistants = [m for m in saved if m["role"] == "assistant"]
    # At most the in-flight reply is lost: every reply whose tool had started was saved.
    assert len(assistants) >= run.count("tool_started")
    assert len(assistants) >= 1

    # The model picks up where the saved history ends; the blocker no longer blocks. The kill
    # can land after a reply was saved but before its tool finished (the child runs ahead of the
    # event we waited for): the history then ends with that reply, and the model does it again.
    redo = 1 if saved[-1]["role"] == "assistant" else 0
    rest = _replies(command("echo not blocking"))[len(assistants) - redo :]
    proc = _resume(isolated_home, workspace, rest, tmp_path)
    assert proc.returncode == 0, proc.stderr + proc.stdout

    assert list((isolated_home / "tasks").iterdir()) == [folder]  # same folder, same history
    for name in ("a", "b", "c"):
        assert (workspace / f"{name}.txt").read_text(encoding="utf-8") == f"{name}\n"
    history = load_json(folder / "api_conversation_history.json")
    assert history[: len(assistants) * 2 - 1] == saved[: len(assistants) * 2 - 1]
    user_texts = [t for m in history if m["role"] == "user" for t in _texts(m)]
    assert sum(t.startswith("<task>") for t in user_texts) == 1
    resumption = [t for t in user_texts if t.startswith("[TASK RESUMPTION]")]
    assert len(resumption) == 1 and str(workspace.resolve()) in resumption[0]
    assert "interrupted just now" in resumption[0]  # how long ago, in words
    if point == "during-blocking-command":
        interrupted = [t for t in user_texts if "interrupted before this tool finished" in t]
        assert len(interrupted) == 1 and interrupted[0].startswith("[execute_command] Result:")
    record = load_json(folder / "task_metadata.json")["record"]
    assert record["status"] == "completed"
    ui = load_json(folder / "ui_messages.json")
    assert [m.get("say") for m in ui].count("resume_task") == 1


class _SignallingOpenAI(FakeOpenAI):
    """Sets `stalled` when a request reaches a `Stall` step (the reply is then in flight)."""

    def __init__(self, replies: list[str | Stall]) -> None:
        super().__init__(replies)
        self.stalled = threading.Event()

    def _respond(self, request: RecordedRequest) -> Planned:
        plan = super()._respond(request)
        if plan.stall:
            self.stalled.set()
        return plan


def test_kill_9_while_the_model_is_replying_loses_only_that_reply(
    isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    with _SignallingOpenAI([write_file("a.txt", "a\n"), Stall()]) as server:
        run = Run(
            isolated_home,
            workspace,
            [
                *("--provider", "openai", "--base-url", server.base_url),
                *("--api-key", "k", "--model", "gpt-4o", "write a"),
            ],
        )
        assert server.stalled.wait(WAIT)
        run.kill9()

    [folder] = (isolated_home / "tasks").iterdir()
    saved = saved_history(folder)
    # The request in flight was for the third message: the tool result, already saved.
    assert [m["role"] for m in saved] == ["user", "assistant", "user"]
    assert _texts(saved[2])[0].startswith("[write_to_file for 'a.txt'] Result:")

    proc = _resume(isolated_home, workspace, [COMPLETE], tmp_path)
    assert proc.returncode == 0, proc.stderr
    history = load_json(folder / "api_conversation_history.json")
    assert [m["role"] for m in history] == ["user", "assistant", "user", "assistant"]
    resent = _texts(history[2])
    assert resent[0] == _texts(saved[2])[0]  # the tool result is sent again, not lost
    assert resent[1].startswith("[TASK RESUMPTION]")
    assert sum("<environment_details>" in t for t in resent) == 1  # stale details dropped
