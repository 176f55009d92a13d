"""pycline's data folder is private whatever the umask: made 0700, its files 0600, the checkpoint
repository too. Another local account (`nobody`) reads no task's prompt from it, and
`pycline doctor` says when a data folder is readable by others."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from pycline.app.doctor.machine import check_data_folder
from tests.security.attack import COMPLETE, command, write_file

PROMPT = "PROMPT-private-3e9 fix the billing code"


def _as_nobody(*argv: str) -> subprocess.CompletedProcess[str]:
    """`argv` run as another local account: the user `nobody`, in group `nogroup`."""
    setpriv = shutil.which("setpriv")
    assert setpriv is not None, "setpriv (util-linux) is needed to act as another account"
    assert os.getuid() == 0, "acting as another account needs these tests to run as root"
    return subprocess.run(
        [setpriv, "--reuid=nobody", "--regid=nogroup", "--clear-groups", "--", *argv],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip


@pytest.fixture
def shared_place() -> Iterator[Path]:
    """A folder every account may enter (as a home's parent is), outside pytest's own 0700."""
    place = Path(tempfile.mkdtemp(prefix="pycline-private-"))
    place.chmod(0o755)
    try:
        yield place
    finally:
        shutil.rmtree(place, ignore_errors=True)


def test_another_account_reads_nothing_of_the_data_folder_whatever_the_umask(
    shared_place: Path,
) -> None:
    # The other account is real: it reads a file left open to it in the same place.
    (shared_place / "open.txt").write_text("OPEN-TO-ALL\n", encoding="utf-8")
    (shared_place / "open.txt").chmod(0o644)
    assert _as_nobody("cat", str(shared_place / "open.txt")).stdout == "OPEN-TO-ALL\n"

    home = shared_place / "data"  # not there yet: pycline makes it
    workspace = shared_place / "project"
    workspace.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=workspace, check=True)
    script = shared_place / "script.json"
    replies = [write_file("notes.txt", "secret plans"), command("echo hi"), COMPLETE]
    script.write_text(json.dumps(replies), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update({"PYCLINE_HOME": str(home), "NO_COLOR": "1"})
    proc = subprocess.run(
        [sys.executable, "-m", "pycline", "run", "--provider", "scripted", "--script",
         str(script), "--yes", PROMPT],
        cwd=workspace, env=env, capture_output=True, text=True, timeout=120,
        stdin=subprocess.DEVNULL, umask=0,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert (workspace / "notes.txt").read_text(encoding="utf-8").strip() == "secret plans"
    assert stat.S_IMODE(home.stat().st_mode) == 0o700
    checkpoints = [p for p in (home / "checkpoints").rglob("HEAD")]
    assert checkpoints, "the task made no checkpoint"
    # Every file 0600; the folders of the tasks and of the checkpoint repository 0700.
    private_folders = (home / "tasks", home / "checkpoints")
    wide = [
        f"{stat.S_IMODE(p.lstat().st_mode):o} {p.relative_to(home)}"
        for p in home.rglob("*")
        if not p.is_symlink()
        and p.lstat().st_mode & 0o077
        and (p.is_file() or any(p.is_relative_to(f) for f in private_folders))
    ]
    assert wide == []
    history = home / "history.sqlite"
    assert PROMPT.encode() in history.read_bytes() or any(
        PROMPT in p.read_text(encoding="utf-8", errors="replace")
        for p in (home / "tasks").rglob("*.json")
    )
    for target in (history, *(home / "tasks").rglob("*.json")):
        read = _as_nobody("cat", str(target))
        assert read.returncode != 0 and PROMPT not in read.stdout
    listed = _as_nobody("grep", "-r", "PROMPT-private", str(home))
    assert "PROMPT-private" not in listed.stdout


def test_doctor_flags_a_data_folder_others_can_read(shared_place: Path) -> None:
    home = shared_place / "data"
    home.mkdir()
    home.chmod(0o755)
    (found,) = asyncio.run(check_data_folder(home))
    assert found.status == "warn" and "other users can read" in found.detail
    assert found.fix == f"chmod -R go-rwx {home}"
    home.chmod(0o700)
    (fine,) = asyncio.run(check_data_folder(home))
    assert fine.status == "ok"
