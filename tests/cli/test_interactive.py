"""The interactive session in a real pseudo-terminal, answered as a user would."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pexpect

WRITE = "<write_to_file>\n<path>hello.txt</path>\n<content>\nhello\n</content>\n</write_to_file>"
WRITE2 = "<write_to_file>\n<path>bye.txt</path>\n<content>\nbye\n</content>\n</write_to_file>"
COMPLETE = "<attempt_completion>\n<result>Wrote the file.</result>\n</attempt_completion>"


def spawn(
    args: list[str], home: Path, cwd: Path, extra_env: dict[str, str] | None = None
) -> pexpect.spawn:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update({"PYCLINE_HOME": str(home), "NO_COLOR": "1", "TERM": "dumb", **(extra_env or {})})
    return pexpect.spawn(
        sys.executable,
        ["-m", "pycline", *args],
        cwd=str(cwd),
        env=env,
        encoding="utf-8",
        timeout=60,
        dimensions=(50, 200),
    )


def test_user_types_task_rejects_with_feedback_approves_and_accepts(
    isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    script = tmp_path / "s.json"
    script.write_text(json.dumps([WRITE, WRITE2, COMPLETE, COMPLETE]), encoding="utf-8")
    child = spawn(["--provider", "scripted", "--script", str(script)], isolated_home, workspace)
    child.expect("Task> ")
    child.sendline("write greetings")
    child.expect(r"\+hello")  # the diff is shown before approval
    child.expect(r"Allow write_to_file for 'hello.txt'\? ")
    child.sendline("y")
    child.expect(r"Allow write_to_file for 'bye.txt'\? ")
    child.sendline("no goodbyes please")
    child.expect("Press Enter to accept, or type feedback")
    child.sendline("are you sure?")
    child.expect("Press Enter to accept, or type feedback")
    child.sendline("")
    child.expect("Task> ")
    child.sendeof()
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert (workspace / "hello.txt").read_text(encoding="utf-8") == "hello\n"
    assert not (workspace / "bye.txt").exists()
    task_dir = next((isolated_home / "tasks").iterdir())
    history = json.loads((task_dir / "api_conversation_history.json").read_text(encoding="utf-8"))
    texts = [b["text"] for m in history for b in m["content"] if m["role"] == "user"]
    assert any("no goodbyes please" in t for t in texts)
    assert any("are you sure?" in t for t in texts)


def test_user_edits_the_proposal_in_their_editor_and_the_model_sees_the_diff(
    isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    editor = tmp_path / "editor.py"
    editor.write_text(
        "import sys, pathlib\np = pathlib.Path(sys.argv[1])\n"
        "p.write_text(p.read_text().replace('hello', 'hello from the user'))\n",
        encoding="utf-8",
    )
    script = tmp_path / "s.json"
    script.write_text(json.dumps([WRITE, COMPLETE]), encoding="utf-8")
    child = spawn(
        ["--provider", "scripted", "--script", str(script), "greet"],
        isolated_home,
        workspace,
        {"EDITOR": f"{sys.executable} {editor}", "VISUAL": ""},
    )
    child.expect(r"\[e\]dit first")
    child.sendline("e")
    child.expect("Press Enter to accept")
    child.sendline("")
    child.expect("Task> ")
    child.sendeof()
    child.expect(pexpect.EOF)
    assert (workspace / "hello.txt").read_text(encoding="utf-8") == "hello from the user\n"
    task_dir = next((isolated_home / "tasks").iterdir())
    history = json.loads((task_dir / "api_conversation_history.json").read_text(encoding="utf-8"))
    result = history[2]["content"][0]["text"]
    assert "The user edited your proposal" in result
    assert "+hello from the user" in result


def test_user_lists_and_stops_a_background_process_at_a_prompt(
    isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    serve = (
        f'<execute_command>\n<command>{sys.executable} -c "import time; time.sleep(300)"'
        "</command>\n<requires_approval>false</requires_approval>\n<timeout>1</timeout>\n"
        "</execute_command>"
    )
    ask = "<ask_followup_question>\n<question>Keep going?</question>\n</ask_followup_question>"
    script = tmp_path / "s.json"
    script.write_text(json.dumps([serve, ask, COMPLETE]), encoding="utf-8")
    child = spawn(
        ["--provider", "scripted", "--script", str(script), "serve"], isolated_home, workspace
    )
    child.expect("Keep going")
    child.expect("> ")
    child.sendline("/ps")
    child.expect(r"1\s+running\s+.*time\.sleep\(300\)")
    child.sendline("/stop 1")
    child.expect("Stopped process 1")
    child.sendline("/ps")
    child.expect("No background processes.")
    child.sendline("yes")
    child.expect("Press Enter to accept")
    child.sendline("")
    child.expect("Task> ")
    child.sendeof()
    child.expect(pexpect.EOF)


def test_an_approved_new_task_continues_at_once_as_the_new_task(
    isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    new_task = "<new_task>\n<context>\nContinue: add the tests.\n</context>\n</new_task>"
    script = tmp_path / "s.json"
    script.write_text(json.dumps([new_task, COMPLETE]), encoding="utf-8")
    child = spawn(["--provider", "scripted", "--script", str(script)], isolated_home, workspace)
    child.expect("Task> ")
    child.sendline("big job /newtask")
    child.expect(r"Allow Start a new task with context\? ")
    child.sendline("y")
    child.expect("Wrote the file.")  # the new task's result
    child.expect("Press Enter to accept, or type feedback")
    child.sendline("")
    child.expect("Task> ")
    child.sendeof()
    child.expect(pexpect.EOF)
    child.close()
    tasks = []
    for folder in (isolated_home / "tasks").iterdir():
        history = json.loads((folder / "api_conversation_history.json").read_text("utf-8"))
        tasks.append(history[0]["content"][0]["text"])
    assert len(tasks) == 2
    assert any(t.startswith("<task>\nContinue: add the tests.") for t in tasks)
