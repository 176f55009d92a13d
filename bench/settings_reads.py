"""How many times the settings files are read while a session opens and while it builds tasks.

Run: .venv/bin/python bench/settings_reads.py [--tasks N]
Prints the reads of `settings.json` (global and the workspace's) at session open, and per task
build (prepare_task: everything a new task is assembled from, without running it).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any


async def count(tasks: int) -> tuple[int, list[int]]:
    from pycline.app.sessions.session import ConfigOverrides, Session
    from pycline.app.settings import config

    reads: Counter[str] = Counter()
    real = config.read_json

    def counted(path: Path, *args: Any, **kwargs: Any) -> Any:
        if Path(path).name == "settings.json":
            reads["settings"] += 1
        return real(path, *args, **kwargs)

    config.read_json = counted  # type: ignore[assignment]
    root = Path(tempfile.mkdtemp())
    home, workspace = root / "home", root / "project"
    (home / "settings").mkdir(parents=True)
    (workspace / ".pycline").mkdir(parents=True)
    (home / "settings" / "settings.json").write_text(json.dumps({"maxRetries": 2}))
    (workspace / ".pycline" / "settings.json").write_text(json.dumps({"commandTimeout": 30}))
    script = root / "script.json"
    script.write_text(
        json.dumps(["<attempt_completion>\n<result>ok</result>\n</attempt_completion>"])
    )
    os.environ["PYCLINE_LANGUAGE_SERVERS"] = "off"
    overrides = ConfigOverrides(provider="scripted", script=str(script))
    session = await Session.open(workspace, home=home, overrides=overrides)
    at_open = reads["settings"]
    per_task = []
    try:
        for _ in range(tasks):
            before = reads["settings"]
            session.prepare_task()
            per_task.append(reads["settings"] - before)
    finally:
        await session.close()
        config.read_json = real  # type: ignore[assignment]
    return at_open, per_task


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tasks", type=int, default=3)
    args = parser.parse_args()
    at_open, per_task = asyncio.run(count(args.tasks))
    print(f"settings file reads at session open: {at_open}")
    print(f"settings file reads per task build:  {per_task}")


if __name__ == "__main__":
    main()
