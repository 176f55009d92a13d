"""`kill -9` while `pycline run` saves a large edit leaves no temp file in the workspace."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.cli.task_cli import cli_env

COMPLETE = "<attempt_completion>\n<result>ok</result>\n</attempt_completion>"
DIFF = "------- SEARCH\nSTART\n=======\nBEGIN\n+++++++ REPLACE"


def _writing_into(pid: int, folder: Path) -> str | None:
    """A file under `folder` that process `pid` holds open for writing, if any."""
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return None
    for fd in fds:
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
            info = Path(f"/proc/{pid}/fdinfo/{fd}").read_text(encoding="ascii")
        except OSError:
            continue
        flags = int(info.split("flags:", 1)[1].split()[0], 8)
        if target.startswith(str(folder)) and flags & os.O_ACCMODE:
            return target
    return None


def _kill_while_saving(home: Path, workspace: Path, megabytes: int) -> str | None:
    """Run a task replacing one line of a big file; kill -9 it while it holds a file in the
    workspace open for writing. The file it was writing, or None if the save was over first."""
    body = ("x" * 1_000_000 + "\n") * megabytes
    (workspace / "f.txt").write_text("START\n" + body, encoding="utf-8")
    edit = f"<replace_in_file>\n<path>f.txt</path>\n<diff>\n{DIFF}\n</diff>\n</replace_in_file>"
    script = home / f"script-{megabytes}.json"
    script.write_text(json.dumps([edit, COMPLETE]), encoding="utf-8")
    proc = subprocess.Popen(
        [sys.executable, "-m", "pycline", "run", "--provider", "scripted",
         "--script", str(script), "--yes", "edit f.txt"],
        cwd=workspace, env=cli_env(home), stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    deadline = time.monotonic() + 120
    try:
        while proc.poll() is None and time.monotonic() < deadline:
            writing = _writing_into(proc.pid, workspace)
            if writing is not None:
                os.kill(proc.pid, signal.SIGKILL)
                return writing
        return None
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(30)


def test_a_kill_during_a_large_replace_leaves_no_temp_file(
    isolated_home: Path, workspace: Path
) -> None:
    caught = None
    for megabytes in (8, 24, 64):  # the save must still be running when we look
        caught = _kill_while_saving(isolated_home, workspace, megabytes)
        if caught is not None:
            break
    assert caught is not None, "never caught pycline while it saved the file"
    assert sorted(p.name for p in workspace.iterdir()) == ["f.txt"]
    # The file is the old one or the new one, whole.
    head = (workspace / "f.txt").read_bytes()[:6]
    assert head in (b"START\n", b"BEGIN\n")
