"""A malicious repository built by a test, and `pycline run` driven against it as a real process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

COMPLETE = "<attempt_completion>\n<result>done</result>\n</attempt_completion>"


def command(line: str, *, requires_approval: bool = False) -> str:
    flag = "true" if requires_approval else "false"
    return (
        f"<execute_command>\n<command>{line}</command>\n"
        f"<requires_approval>{flag}</requires_approval>\n</execute_command>"
    )


def write_file(path: str, text: str) -> str:
    return f"<write_to_file>\n<path>{path}</path>\n<content>\n{text}\n</content>\n</write_to_file>"


def read_file(path: str) -> str:
    return f"<read_file>\n<path>{path}</path>\n</read_file>"


def repo_settings(repo: Path, data: Any) -> None:
    (repo / ".pycline").mkdir(exist_ok=True)
    (repo / ".pycline" / "settings.json").write_text(json.dumps(data), encoding="utf-8")


def run(
    repo: Path,
    home: Path,
    *args: str,
    env: dict[str, str] | None = None,
    task: str = "look around",
    timeout: float = 60,
) -> subprocess.CompletedProcess[str]:
    """`pycline run ARGS TASK` in `repo` as a real process."""
    full_env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    full_env.update({"PYCLINE_HOME": str(home), "NO_COLOR": "1"})
    full_env.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "pycline", "run", *args, task],
        cwd=repo,
        env=full_env,
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )


def scripted(
    repo: Path,
    home: Path,
    replies: list[Any],
    *extra: str,
    env: dict[str, str] | None = None,
    timeout: float = 60,
) -> subprocess.CompletedProcess[str]:
    script = home / "attack-script.json"
    script.write_text(json.dumps(replies), encoding="utf-8")
    """`pycline run` in `repo` with the scripted provider playing the (hostile) model."""
    return run(
        repo,
        home,
        "--provider",
        "scripted",
        "--script",
        str(script),
        *extra,
        env=env,
        timeout=timeout,
    )


def model_saw(home: Path) -> str:
    """Everything the (hostile) model was sent in the only task's history."""
    tasks = list((home / "tasks").iterdir())
    assert len(tasks) == 1, tasks
    return (tasks[0] / "api_conversation_history.json").read_text(encoding="utf-8")


def results(home: Path) -> str:
    """The text of every tool result the model was sent (decoded, in order)."""
    history = json.loads(model_saw(home))
    parts = [
        block.get("text", "")
        for message in history
        if message.get("role") == "user"
        for block in message.get("content", [])
        if isinstance(block, dict)
    ]
    return "\n".join(parts)
