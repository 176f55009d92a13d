"""Every live task on the board: a task typed at the terminal's `Task>` prompt is listed by
`pycline tasks` in another process, answered and stopped from there (`attach`, `stop`), and gone
from the board when it ends or its terminal is killed."""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path
from typing import Any

import pexpect

from tests.app.batch_helpers import COMPLETE, write_file_reply, write_script
from tests.cli.test_background import board, cli, env  # noqa: F401  (`env`: a fixture)
from tests.cli.test_interactive import spawn


def terminal(environ: dict[str, str], workspace: Path, script: Path) -> pexpect.spawn:
    extra = {"XDG_RUNTIME_DIR": environ["XDG_RUNTIME_DIR"]}
    args = ["--provider", "scripted", "--script", str(script)]
    return spawn(args, Path(environ["PYCLINE_HOME"]), workspace, extra)


def listed(environ: dict[str, str], status: str) -> dict[str, Any]:
    """The one live task on the board once it has `status` (the terminal writes it as it goes)."""
    deadline = time.monotonic() + 30
    while True:
        entries = board(environ)
        if (entries and entries[0]["status"] == status) or time.monotonic() > deadline:
            assert len(entries) == 1 and entries[0]["status"] == status, entries
            return entries[0]


def test_a_task_typed_in_the_terminal_is_listed_and_answered_from_another_process(
    env: dict[str, str],  # noqa: F811
    workspace: Path,
    tmp_path: Path,
) -> None:
    script = write_script(tmp_path / "s.json", [write_file_reply("notes.txt", "hi"), COMPLETE])
    child = terminal(env, workspace, script)
    child.expect("Task> ")
    child.sendline("write the notes")
    child.expect(r"Allow write_to_file for 'notes.txt'\? ")
    entry = listed(env, "waiting")
    assert entry["front_end"] == "terminal" and entry["id"].startswith("live-")
    assert entry["task"] == "write the notes" and entry["workspace"] == str(workspace)
    assert "notes.txt" in entry["question"] and entry["pid"] == child.pid
    human = cli(env, "tasks")
    assert entry["id"] in human.stdout and "terminal" in human.stdout

    # Answered from elsewhere: the task goes on, and the terminal's own prompt goes away.
    attached = cli(env, "attach", entry["id"], stdin="1\n")
    assert "write the notes" in attached.stdout  # the transcript so far
    assert "Approve: write_to_file" in attached.stdout
    assert (workspace / "notes.txt").read_text() == "hi\n"
    child.expect("Press Enter to accept, or type feedback")
    child.sendline("")
    child.expect("Task> ")
    assert board(env) == []  # the task ended: off the board
    child.sendeof()
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert list((Path(env["PYCLINE_HOME"]) / "background").glob("live-*")) == []


def test_stop_cancels_a_terminal_task_and_leaves_the_terminal_running(
    env: dict[str, str],  # noqa: F811
    workspace: Path,
    tmp_path: Path,
) -> None:
    script = write_script(tmp_path / "s.json", [write_file_reply("x.txt", "x"), COMPLETE])
    child = terminal(env, workspace, script)
    child.expect("Task> ")
    child.sendline("write x")
    child.expect(r"Allow write_to_file for 'x.txt'\? ")
    entry = listed(env, "waiting")
    stopped = cli(env, "stop", entry["id"])
    assert stopped.returncode == 0, stopped.stderr
    child.expect("Task> ")  # the task was cancelled; the terminal is still there
    assert child.isalive() and not (workspace / "x.txt").exists()
    assert board(env) == []
    child.sendeof()
    child.expect(pexpect.EOF)
    child.close()


def test_the_task_of_a_killed_terminal_is_not_listed(
    env: dict[str, str],  # noqa: F811
    workspace: Path,
    tmp_path: Path,
) -> None:
    script = write_script(tmp_path / "s.json", [write_file_reply("x.txt", "x"), COMPLETE])
    child = terminal(env, workspace, script)
    child.expect("Task> ")
    child.sendline("write x")
    child.expect(r"Allow write_to_file for 'x.txt'\? ")
    entry = listed(env, "waiting")
    sock = Path(env["XDG_RUNTIME_DIR"]) / "pycline" / f"{entry['id']}.sock"
    assert sock.exists()
    os.kill(child.pid, signal.SIGKILL)
    child.expect(pexpect.EOF)
    child.close()
    assert board(env) == []
    assert not sock.exists()  # what it left behind is cleared by the listing
    attach = cli(env, "attach", entry["id"])
    assert attach.returncode == 2 and "no task" in attach.stderr
    assert json.loads(cli(env, "tasks", "--json").stdout) == []
