"""`pycline run` as a real subprocess, driven by the scripted provider."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from pycline.app.services.exit_codes import ExitCode

COMPLETE = "<attempt_completion>\n<result>done</result>\n</attempt_completion>"


def run_cli(
    args: list[str], *, home: Path, cwd: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    full_env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    full_env.update({"PYCLINE_HOME": str(home), "NO_COLOR": "1"})
    full_env.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "pycline", *args],
        cwd=cwd,
        env=full_env,
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )


def script(tmp_path: Path, replies: list[object]) -> Path:
    path = tmp_path / "script.json"
    path.write_text(json.dumps(replies), encoding="utf-8")
    return path


def test_multi_step_task_with_yes_leaves_the_right_files(
    isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    replies = [
        "I'll create the module.\n<write_to_file>\n<path>calc.py</path>\n<content>\ndef add(a, b):\n    return a - b\n</content>\n</write_to_file>",
        "<write_to_file>\n<path>test_calc.py</path>\n<content>\nfrom calc import add\nassert add(2, 3) == 5\nprint('ok')\n</content>\n</write_to_file>",
        "Fix the bug.\n<replace_in_file>\n<path>calc.py</path>\n<diff>\n------- SEARCH\n    return a - b\n=======\n    return a + b\n+++++++ REPLACE\n</diff>\n</replace_in_file>",
        f"<execute_command>\n<command>{sys.executable} test_calc.py</command>\n<requires_approval>false</requires_approval>\n</execute_command>",
        COMPLETE,
    ]
    proc = run_cli(
        [
            "run",
            "--provider",
            "scripted",
            "--script",
            str(script(tmp_path, replies)),
            "--yes",
            "make calc",
        ],
        home=isolated_home,
        cwd=workspace,
    )
    assert proc.returncode == 0, proc.stderr
    assert (workspace / "calc.py").read_text(
        encoding="utf-8"
    ) == "def add(a, b):\n    return a + b\n"
    assert "ok" in proc.stdout
    assert "Task completed" in proc.stdout
    tasks = list((isolated_home / "tasks").iterdir())
    assert len(tasks) == 1
    history = json.loads((tasks[0] / "api_conversation_history.json").read_text(encoding="utf-8"))
    assert len(history) == 10


def test_without_yes_writes_are_refused_the_model_is_told_and_the_exit_code_says_so(
    isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    replies = [
        "<write_to_file>\n<path>a.txt</path>\n<content>x</content>\n</write_to_file>",
        COMPLETE,
    ]
    proc = run_cli(
        [
            "run",
            "--provider",
            "scripted",
            "--script",
            str(script(tmp_path, replies)),
            "--json",
            "write",
        ],
        home=isolated_home,
        cwd=workspace,
    )
    # The model said it was done, but its only write was refused: a script must not see 0.
    assert proc.returncode == ExitCode.REFUSED == 4, proc.stderr
    assert "1 action that needed approval was refused; `--yes` approves" in proc.stderr
    assert not (workspace / "a.txt").exists()
    events = [json.loads(line) for line in proc.stdout.splitlines()]
    assert all(e["v"] == 3 and e["task_id"] == events[0]["task_id"] for e in events)
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    asks = [e for e in events if e["kind"] == "question_asked"]
    assert asks[0]["question"]["kind"] == "approval"
    answers = [e for e in events if e["kind"] == "question_answered"]
    assert answers[0]["question_id"] == asks[0]["question_id"]
    assert answers[0]["answer"]["option"] == "deny" and "--yes" in answers[0]["answer"]["text"]
    assert events[-1]["kind"] == "task_ended" and events[-1]["completed"] is True


def test_failure_exits_nonzero_with_one_line(
    isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    proc = run_cli(
        [
            "run",
            "--provider",
            "scripted",
            "--script",
            str(script(tmp_path, ["no tools", "none", "nada"])),
            "x",
        ],
        home=isolated_home,
        cwd=workspace,
    )
    assert proc.returncode == 1
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "mistakes" in lines[0]
    assert "Traceback" not in proc.stderr


def test_no_model_configured_is_a_clear_error(isolated_home: Path, workspace: Path) -> None:
    proc = run_cli(["run", "x"], home=isolated_home, cwd=workspace)
    assert proc.returncode == 2
    assert "No model is configured" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_history_lists_tasks(isolated_home: Path, workspace: Path, tmp_path: Path) -> None:
    run_cli(
        [
            "run",
            "--provider",
            "scripted",
            "--script",
            str(script(tmp_path, [COMPLETE])),
            "first task",
        ],
        home=isolated_home,
        cwd=workspace,
    )
    proc = run_cli(["history", "--json"], home=isolated_home, cwd=workspace)
    assert proc.returncode == 0
    records = json.loads(proc.stdout)
    assert [r["task"] for r in records] == ["first task"]
    assert records[0]["status"] == "completed"
    plain = run_cli(["history"], home=isolated_home, cwd=workspace)
    assert "first task" in plain.stdout
