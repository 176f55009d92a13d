"""Esc twice at the task prompt lists the task's recent checkpoints and rewinds to the one picked:
files and conversation; the next message continues the task from there."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pexpect

from tests.cli.test_interactive import COMPLETE, WRITE, WRITE2


def _spawn(home: Path, cwd: Path, script: Path, term: str) -> pexpect.spawn:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update({"PYCLINE_HOME": str(home), "NO_COLOR": "1", "TERM": term})
    return pexpect.spawn(
        sys.executable,
        ["-m", "pycline", "--yes", "--provider", "scripted", "--script", str(script)],
        cwd=str(cwd),
        env=env,
        encoding="utf-8",
        timeout=60,
        dimensions=(40, 160),
    )


def _rewind_after_two_writes(home: Path, cwd: Path, tmp_path: Path, term: str) -> None:
    script = tmp_path / "s.json"
    script.write_text(json.dumps([WRITE, WRITE2, COMPLETE, COMPLETE]), encoding="utf-8")
    child = _spawn(home, cwd, script, term)
    child.expect("Task>")
    child.send("write two files\r")
    child.expect("Press Enter to accept")
    child.send("\r")
    child.expect("Task>")
    child.send("\x1b\x1b" if term != "dumb" else "\x1b\x1b\r")  # Esc, Esc
    child.expect(r"(\d+)\. \S+  after write_to_file hello\.txt")
    number = child.match.group(1)
    child.expect("Checkpoint number")
    child.send(f"{number}\r")
    child.expect("Your next message continues this task")
    child.expect("Task>")
    assert not (cwd / "bye.txt").exists() and (cwd / "hello.txt").exists()
    child.send("and now?\r")
    child.expect("Press Enter to accept")
    child.send("\r")
    child.expect("Task>")
    child.sendeof()
    child.expect(pexpect.EOF)
    [task] = [p for p in (home / "tasks").iterdir() if p.is_dir()]
    history = json.loads((task / "api_conversation_history.json").read_text(encoding="utf-8"))
    # The scripted model replays its replies from the start after a resume, so look only at
    # what the rewind left and the message that continued it.
    kept = json.dumps(history[:3])
    assert "bye.txt" not in kept
    assert "[TASK RESUMPTION]" in kept and "and now?" in kept


def test_esc_twice_rewinds_to_a_picked_checkpoint(
    isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    _rewind_after_two_writes(isolated_home, workspace, tmp_path, "xterm")


def test_esc_twice_then_enter_rewinds_in_a_plain_terminal(
    isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    _rewind_after_two_writes(isolated_home, workspace, tmp_path, "dumb")
