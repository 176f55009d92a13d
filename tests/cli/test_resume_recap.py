"""Resuming shows what the task was and waits; a completed task asks for a new message."""

from __future__ import annotations

import json
from pathlib import Path

import pexpect

from tests.cli.task_cli import COMPLETE, run_task, write_file
from tests.cli.test_interactive import spawn


def test_resuming_a_completed_task_shows_a_recap_and_sends_the_new_message(
    isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    task_id = run_task(
        isolated_home,
        workspace,
        [write_file("notes.txt", "one\n"), COMPLETE],
        text="write the notes",
        script_dir=tmp_path,
    )
    script = tmp_path / "more.json"
    script.write_text(json.dumps([COMPLETE]), encoding="utf-8")
    child = spawn(
        ["resume", task_id, "--provider", "scripted", "--script", str(script)],
        isolated_home,
        workspace,
    )
    child.expect(f"Task {task_id} · completed")
    child.expect("  write the notes")
    child.expect(  # the result once, then the numbers
        r"result: done\r\n  1 file changed · ↑[\d,]+ ↓[\d,]+ tokens · \$0\.0000 · ran with scripted/scripted"
    )
    child.expect("This task is completed. Type a new message to continue it")
    child.sendline("now add a second line")
    child.expect("Press Enter to accept")
    child.sendline("")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    folder = isolated_home / "tasks" / task_id
    history = json.loads((folder / "api_conversation_history.json").read_text(encoding="utf-8"))
    user_texts = [
        b["text"] for m in history if m["role"] == "user" for b in m["content"] if "text" in b
    ]
    assert any("<user_message>\nnow add a second line\n</user_message>" in t for t in user_texts)


def test_enter_at_a_completed_task_leaves_it_alone(
    isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    task_id = run_task(isolated_home, workspace, [COMPLETE], script_dir=tmp_path)
    script = tmp_path / "none.json"
    script.write_text("[]", encoding="utf-8")
    child = spawn(["--provider", "scripted", "--script", str(script)], isolated_home, workspace)
    child.expect("Task> ")
    child.sendline("/resume")
    child.expect(f"Task {task_id} · completed")
    child.expect("Type a new message to continue it")
    child.sendline("")
    child.expect("Task> ")  # back at the prompt; the model was not called
    child.sendline("/exit")
    child.expect(pexpect.EOF)
