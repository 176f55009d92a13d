"""Running `pycline` as a real process for the task-history, checkpoint and resume tests."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

COMPLETE = "<attempt_completion>\n<result>done</result>\n</attempt_completion>"


def write_file(path: str, text: str) -> str:
    return f"<write_to_file>\n<path>{path}</path>\n<content>\n{text}</content>\n</write_to_file>"


def command(line: str) -> str:
    return (
        f"<execute_command>\n<command>{line}</command>\n"
        "<requires_approval>false</requires_approval>\n</execute_command>"
    )


def cli_env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update({"PYCLINE_HOME": str(home), "NO_COLOR": "1"})
    return env


def pycline(
    *args: str, home: Path, cwd: Path, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pycline", *args],
        cwd=cwd,
        env=cli_env(home),
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )


def script_file(folder: Path, replies: list[str], name: str = "script.json") -> Path:
    path = folder / name
    path.write_text(json.dumps(replies), encoding="utf-8")
    return path


def run_task(
    home: Path, cwd: Path, replies: list[str], *, text: str = "do it", script_dir: Path
) -> str:
    """Run a task headless with --yes and return its id."""
    script = script_file(script_dir, replies, f"script-{len(list(script_dir.iterdir()))}.json")
    proc = pycline(
        "run", "--provider", "scripted", "--script", str(script), "--yes", text, home=home, cwd=cwd
    )
    assert proc.returncode == 0, proc.stderr
    return only_task(home, text)


def only_task(home: Path, text: str) -> str:
    records = history(home)
    found = [r["id"] for r in records if r["task"] == text]
    assert len(found) == 1, records
    return str(found[0])


def history(home: Path, *extra: str) -> list[dict[str, Any]]:
    proc = pycline("history", "--json", *extra, home=home, cwd=home)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert isinstance(data, list)
    return data


def load_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def saved_history(folder: Path) -> Any:
    """The model's history as saved, journal included (a killed task has not folded it in)."""
    from pycline.storage.task_store import TaskFolder

    return json.loads(json.dumps([m.to_json() for m in TaskFolder(folder).load_api_history()]))


def saved_ui(folder: Path) -> Any:
    from pycline.storage.task_store import TaskFolder

    return json.loads(json.dumps([m.to_json() for m in TaskFolder(folder).load_ui_messages()]))
