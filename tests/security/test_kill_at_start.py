"""A task killed (kill -9) between its creation and its first history write can be resumed, and
does not block `pycline resume` in its folder."""

from __future__ import annotations

import json
import time
from pathlib import Path

from pycline.storage.records import TaskRecord
from pycline.storage.task_store import TaskStore
from tests.security.attack import COMPLETE, write_file


def _resume_cmd(workspace: Path, home: Path, replies: list[str]) -> tuple[int, str]:
    import os
    import subprocess
    import sys

    script = home / "resume-script.json"
    script.write_text(json.dumps(replies), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update({"PYCLINE_HOME": str(home), "NO_COLOR": "1"})
    proc = subprocess.run(
        [sys.executable, "-m", "pycline", "resume", "--yes", "--provider", "scripted",
         "--script", str(script)],
        cwd=workspace, env=env, capture_output=True, text=True, timeout=60,
        stdin=subprocess.DEVNULL,
    )  # fmt: skip
    return proc.returncode, proc.stderr


def test_a_task_with_a_record_but_no_history_resumes_from_its_task_text(
    isolated_home: Path, workspace: Path
) -> None:
    store = TaskStore(isolated_home)
    folder = store.create()
    record = TaskRecord(
        id=folder.id, ts=time.time(), task="make a.txt", workspace=str(workspace.resolve())
    )
    folder.save_record(record)  # what a kill right after creation leaves
    code, err = _resume_cmd(workspace, isolated_home, [write_file("a.txt", "a"), COMPLETE])
    assert code == 0, err
    assert (workspace / "a.txt").read_text(encoding="utf-8") == "a\n"
    history = folder.load_api_history()
    assert history[0].text.startswith("<task>\nmake a.txt\n</task>")


def test_a_nameless_task_folder_does_not_block_resume(isolated_home: Path, workspace: Path) -> None:
    store = TaskStore(isolated_home)
    TaskStore(isolated_home).create()  # killed before even its record was written
    code, err = _resume_cmd(workspace, isolated_home, [COMPLETE])
    assert "Traceback" not in err
    assert code != 0 and "No task to resume" in err
    assert store.index.list(limit=10) == []
