"""Desktop notifications (`notifications: true`) when the task waits for the user."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pexpect
import pytest

from pycline.cli.notify import describe_wait, notify
from pycline.events import ApprovalQuestion, CompletionQuestion, FollowupQuestion

WRITE = "<write_to_file>\n<path>a.txt</path>\n<content>\nhi\n</content>\n</write_to_file>"
COMPLETE = "<attempt_completion>\n<result>Done.</result>\n</attempt_completion>"


def fake_notify_send(folder: Path, body: str) -> Path:
    folder.mkdir(exist_ok=True)
    program = folder / "notify-send"
    program.write_text(f"#!/bin/sh\n{body}\n", encoding="utf-8")
    program.chmod(0o755)
    return folder


def test_notify_runs_notify_send_without_waiting_for_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = tmp_path / "log.txt"
    bin_dir = fake_notify_send(tmp_path / "bin", f'printf "%s|" "$@" > "{log}"')
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    process = notify("pycline", "Approval needed: Edit a.py")
    assert process is not None and process.wait(timeout=10) == 0
    assert log.read_text("utf-8") == "--app-name=pycline|pycline|Approval needed: Edit a.py|"


def test_without_notify_send_nothing_happens(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    assert notify("pycline", "x") is None


def test_a_failing_notifier_is_ignored(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bin_dir = fake_notify_send(tmp_path / "bin", "echo broken >&2; exit 3")
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    process = notify("pycline", "x")
    assert process is not None and process.wait(timeout=10) == 3


def test_the_notification_says_what_is_waiting() -> None:
    assert describe_wait(ApprovalQuestion("write_to_file", "Edit a.py")) == (
        "Approval needed: Edit a.py"
    )
    assert describe_wait(FollowupQuestion("Which port?")) == "Question: Which port?"
    assert describe_wait(CompletionQuestion("done")) == "The task is waiting for you."


def test_interactive_session_notifies_when_approval_is_needed(
    isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    # The fake notifier writes to pycline's own terminal (its parent's stdout), so the test
    # sees the notification in the session's output, in order, without polling a file.
    bin_dir = fake_notify_send(tmp_path / "bin", 'printf "NOTIFIED[%s]\\n" "$3" > /proc/$PPID/fd/1')
    settings = isolated_home / "settings" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(json.dumps({"notifications": True}), encoding="utf-8")
    script = tmp_path / "s.json"
    script.write_text(json.dumps([WRITE, COMPLETE]), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update(
        {
            "PYCLINE_HOME": str(isolated_home),
            "NO_COLOR": "1",
            "TERM": "dumb",
            "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
        }
    )
    child = pexpect.spawn(
        sys.executable,
        ["-m", "pycline", "--provider", "scripted", "--script", str(script), "write"],
        cwd=str(workspace),
        env=env,
        encoding="utf-8",
        timeout=60,
        dimensions=(50, 200),
    )
    # The notifier runs beside the session: its line may come before or after the prompt.
    seen: set[int] = set()
    while len(seen) < 2:
        seen.add(
            child.expect(
                ["NOTIFIED\\[Approval needed: write_to_file for 'a.txt'\\]", "Allow .*\\? "]
            )
        )
    child.sendline("y")
    child.expect("Press Enter to accept")
    child.sendline("")
    child.expect("Task> ")
    child.sendeof()
    child.expect(pexpect.EOF)
    assert (workspace / "a.txt").read_text("utf-8") == "hi\n"
