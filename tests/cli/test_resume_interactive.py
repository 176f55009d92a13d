"""`/resume` in the interactive session, after the previous session was killed with `kill -9`."""

from __future__ import annotations

import signal
import sys
from pathlib import Path

import pexpect

from tests.cli.task_cli import COMPLETE, cli_env, load_json, saved_ui, script_file, write_file


def _spawn(home: Path, cwd: Path, script: Path) -> pexpect.spawn:
    env = {**cli_env(home), "TERM": "dumb"}
    return pexpect.spawn(
        sys.executable,
        ["-m", "pycline", "--provider", "scripted", "--script", str(script)],
        cwd=str(cwd),
        env=env,
        encoding="utf-8",
        timeout=60,
        dimensions=(50, 200),
    )


def test_killed_at_an_approval_prompt_then_resumed_from_the_session(
    isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    first = script_file(tmp_path, [write_file("a.txt", "a\n"), COMPLETE], "first.json")
    child = _spawn(isolated_home, workspace, first)
    child.expect("Task> ")
    child.sendline("write a")
    child.expect(r"Allow write_to_file for 'a.txt'\? ")
    child.kill(signal.SIGKILL)
    child.expect(pexpect.EOF)
    child.close()
    assert child.signalstatus == signal.SIGKILL
    [folder] = (isolated_home / "tasks").iterdir()
    ui = saved_ui(folder)
    assert ui[-1]["type"] == "ask"  # the question was saved before the kill

    again = script_file(tmp_path, [write_file("a.txt", "a\n"), COMPLETE], "again.json")
    child = _spawn(isolated_home, workspace, again)
    child.expect("Task> ")
    child.sendline("/resume 999")
    child.expect("No task with id '999'")
    child.expect("Task> ")
    child.sendline("/resume")
    child.expect(r"Task \d+ · ")  # the recap, and nothing sent to the model before Enter
    child.expect("  write a")
    child.expect(r"ran with scripted/scripted")
    child.expect("Press Enter to continue the task, or type a message first")
    child.sendline("")
    child.expect(r"Allow write_to_file for 'a.txt'\? ")
    child.sendline("y")
    child.expect("Press Enter to accept")
    child.sendline("")
    child.expect("Task> ")
    child.sendeof()
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0

    assert list((isolated_home / "tasks").iterdir()) == [folder]
    assert (workspace / "a.txt").read_text(encoding="utf-8") == "a\n"
    history = load_json(folder / "api_conversation_history.json")
    texts = [b["text"] for m in history if m["role"] == "user" for b in m["content"]]
    assert any("interrupted before this tool finished" in t for t in texts)
    assert any(t.startswith("[TASK RESUMPTION]") for t in texts)
    assert load_json(folder / "task_metadata.json")["record"]["status"] == "completed"
