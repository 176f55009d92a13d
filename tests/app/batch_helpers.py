"""Batch test helpers: task files, scripts and the `pycline batch` subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

COMPLETE = "<attempt_completion>\n<result>done</result>\n</attempt_completion>"


def write_file_reply(path: str, text: str) -> str:
    return f"<write_to_file>\n<path>{path}</path>\n<content>\n{text}\n</content>\n</write_to_file>"


def command_reply(command: str) -> str:
    return (
        f"<execute_command>\n<command>{command}</command>\n"
        "<requires_approval>false</requires_approval>\n</execute_command>"
    )


def write_script(path: Path, replies: list[Any], **model: Any) -> Path:
    data: Any = {"model": model, "replies": replies} if model else replies
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def write_tasks(path: Path, tasks: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(t) + "\n" for t in tasks), encoding="utf-8")
    return path


def batch_env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update({"PYCLINE_HOME": str(home), "NO_COLOR": "1", "RAY_USAGE_STATS_ENABLED": "0"})
    return env


def batch_command(tasks: Path, out: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "pycline", "batch", str(tasks), "--out", str(out), *args]


def run_batch(
    tasks: Path, out: Path, *args: str, home: Path, timeout: float = 180
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        batch_command(tasks, out, *args),
        env=batch_env(home),
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )


def results(out: Path) -> dict[str, dict[str, Any]]:
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    return {row["id"]: row for row in rows}


def comparable(row: dict[str, Any]) -> dict[str, Any]:
    """A result without what differs between runs of the same scripted task (times, ids)."""
    keep = {k: v for k, v in row.items() if k not in ("duration", "transcript")}
    if isinstance(keep.get("check"), dict):
        keep["check"] = {k: v for k, v in keep["check"].items() if k != "duration"}
    return keep
