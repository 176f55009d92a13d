"""A file that vanishes while a checkpoint scans the workspace costs a retry, not the checkpoints.

Another program's temporary file (an atomic save by a second pycline, an editor or a build) can be
listed by `git add -A` and be gone when git stats it; git then stops with a fatal error even with
`--ignore-errors`. A `git` wrapper on PATH fails `add` that way a set number of times, so the
race happens on every run instead of once in a hundred.
"""

from __future__ import annotations

import os
import shlex
import shutil
import stat
from pathlib import Path

import pytest

from pycline.checkpoints import CheckpointError, ShadowGit

from .helpers import shadow_tree, write

VANISHED = "fatal: unable to stat '.f.txt.jclm753z.tmp': No such file or directory"


def _failing_git(folder: Path, *, failures: int, message: str) -> Path:
    """A `git` that fails its first `failures` runs of `add` with `message`; returns the log."""
    real = shutil.which("git")
    assert real is not None
    log = folder / "add-attempts.log"
    bin_dir = folder / "bin"
    bin_dir.mkdir()
    exe = bin_dir / "git"
    exe.write_text(
        "#!/bin/sh\n"
        'for arg in "$@"; do\n'
        '  if [ "$arg" = add ]; then\n'
        f"    echo add >> {shlex.quote(str(log))}\n"
        f'    if [ "$(wc -l < {shlex.quote(str(log))})" -le {failures} ]; then\n'
        f"      echo {shlex.quote(message)} >&2; exit 128\n"
        "    fi\n"
        "  fi\n"
        "done\n"
        f'exec {shlex.quote(real)} "$@"\n',
        encoding="utf-8",
    )
    exe.chmod(exe.stat().st_mode | stat.S_IXUSR)
    return log


@pytest.fixture
def on_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}")
    return tmp_path


async def test_a_vanished_file_is_retried_and_the_checkpoint_is_complete(
    workspace: Path, isolated_home: Path, on_path: Path
) -> None:
    log = _failing_git(on_path, failures=2, message=VANISHED)
    write(workspace / "a.txt", "a\n")
    sg = ShadowGit(workspace, isolated_home)

    commit = await sg.commit("after a save elsewhere")

    assert log.read_text(encoding="utf-8").count("add") == 3
    assert [path for _, path in shadow_tree(sg, commit)] == ["a.txt"]
    assert [c.commit for c in await sg.list()] == [commit]


async def test_files_that_keep_vanishing_give_up_with_gits_message(
    workspace: Path, isolated_home: Path, on_path: Path
) -> None:
    log = _failing_git(on_path, failures=100, message=VANISHED)
    sg = ShadowGit(workspace, isolated_home)
    with pytest.raises(CheckpointError, match=r"git add failed: fatal: unable to stat"):
        await sg.commit("busy workspace")
    assert log.read_text(encoding="utf-8").count("add") == 5
    assert await sg.list() == []


async def test_other_fatal_errors_are_not_retried(
    workspace: Path, isolated_home: Path, on_path: Path
) -> None:
    log = _failing_git(on_path, failures=100, message="fatal: index file corrupt")
    sg = ShadowGit(workspace, isolated_home)
    with pytest.raises(CheckpointError, match=r"git add failed: fatal: index file corrupt"):
        await sg.commit("broken")
    assert log.read_text(encoding="utf-8").count("add") == 1
