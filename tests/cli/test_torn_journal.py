"""A kill -9 leaves the journal's last line torn; the next `pycline resume` must still keep every
record it writes after it (the resumed run's file writes and its completion)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.task_cli import COMPLETE, load_json, pycline, script_file, write_file
from tests.cli.test_resume_kill import Run, _nth


@pytest.mark.parametrize("cut", ["first byte", "half", "all but the brace", "all but the newline"])
def test_resume_after_a_torn_last_line_keeps_the_whole_resumed_run(
    isolated_home: Path, workspace: Path, tmp_path: Path, cut: str
) -> None:
    script = script_file(tmp_path, [write_file("a.txt", "a\n"), write_file("b.txt", "b\n")])
    run = Run(
        isolated_home, workspace, ["--provider", "scripted", "--script", str(script), "make it"]
    )
    run.wait_for(_nth("tool_finished", 1))
    run.kill9()
    [folder] = (isolated_home / "tasks").iterdir()
    journal = folder / "journal.jsonl"
    record = journal.read_bytes().splitlines(keepends=True)[-1]  # a whole line, newline included
    size = {"first byte": 1, "half": len(record) // 2, "all but the brace": len(record) - 2,
            "all but the newline": len(record) - 1}[cut]  # fmt: skip
    with journal.open("ab") as fh:
        fh.write(record[:size])  # what a kill in the middle of that write leaves

    resume = script_file(tmp_path, [write_file("c.txt", "c\n"), COMPLETE], "resume.json")
    proc = pycline(
        "resume", "--provider", "scripted", "--script", str(resume), "--yes",
        home=isolated_home, cwd=workspace,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr + proc.stdout
    assert (workspace / "c.txt").read_text(encoding="utf-8") == "c\n"
    history = json.dumps(load_json(folder / "api_conversation_history.json"))
    assert "c.txt" in history and "attempt_completion" in history
    says = [m.get("say") for m in load_json(folder / "ui_messages.json")]
    assert "resume_task" in says and "completion_result" in says
    assert says.index("completion_result") > says.index("resume_task")
    assert load_json(folder / "task_metadata.json")["record"]["status"] == "completed"
