"""A file that vanishes while a checkpoint scans the workspace never costs the checkpoints.

Another program's temporary file (an atomic save by a second pycline, an editor or a build) can be
listed by git and be gone a moment later. Staging hands git the listed paths, so a vanished one is
simply not recorded. When git refuses a listed path (a file became a folder meanwhile), staging
falls back to `git add -A`, which stops with a fatal error on a vanished file even with
`--ignore-errors` and is retried. A `git` wrapper on PATH makes these races happen on every run
instead of once in a hundred.
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


def _wrapper(folder: Path, body: str) -> None:
    real = shutil.which("git")
    assert real is not None
    bin_dir = folder / "bin"
    bin_dir.mkdir()
    exe = bin_dir / "git"
    exe.write_text(f'#!/bin/sh\nREAL={shlex.quote(real)}\n{body}exec "$REAL" "$@"\n')
    exe.chmod(exe.stat().st_mode | stat.S_IXUSR)


def _failing_git(folder: Path, *, failures: int, message: str) -> Path:
    """A `git` whose `update-index --add` refuses every run (forcing the `add -A` fallback) and
    whose first `failures` runs of `add` fail with `message`; returns the log of `add` runs."""
    log = folder / "add-attempts.log"
    q = shlex.quote(str(log))
    _wrapper(
        folder,
        'case " $* " in *" update-index -z --add "*) echo "fatal: refused" >&2; exit 128;; esac\n'
        'for arg in "$@"; do\n'
        '  if [ "$arg" = add ]; then\n'
        f"    echo add >> {q}\n"
        f'    if [ "$(wc -l < {q})" -le {failures} ]; then\n'
        f"      echo {shlex.quote(message)} >&2; exit 128\n"
        "    fi\n"
        "  fi\n"
        "done\n",
    )
    return log


@pytest.fixture
def on_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}")
    return tmp_path


async def test_a_file_vanishing_after_the_listing_is_left_out_of_a_complete_checkpoint(
    workspace: Path, isolated_home: Path, on_path: Path
) -> None:
    tmp = workspace / ".f.txt.jclm753z.tmp"
    # The temporary file is gone as soon as git has listed it.
    _wrapper(
        on_path,
        'case " $* " in *" ls-files "*)\n'
        '  "$REAL" "$@"; status=$?; rm -f ' + shlex.quote(str(tmp)) + "; exit $status;;\nesac\n",
    )
    write(workspace / "a.txt", "a\n")
    write(tmp, "half-saved\n")
    sg = ShadowGit(workspace, isolated_home)

    commit = await sg.commit("after a save elsewhere")

    assert [path for _, path in shadow_tree(sg, commit)] == ["a.txt"]
    assert [c.commit for c in await sg.list()] == [commit]


async def test_when_git_refuses_a_listed_path_add_runs_and_a_vanished_file_is_retried(
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
    write(workspace / "a.txt", "a\n")
    sg = ShadowGit(workspace, isolated_home)
    with pytest.raises(CheckpointError, match=r"git add failed: fatal: unable to stat"):
        await sg.commit("busy workspace")
    assert log.read_text(encoding="utf-8").count("add") == 5
    assert await sg.list() == []


async def test_other_fatal_errors_are_not_retried(
    workspace: Path, isolated_home: Path, on_path: Path
) -> None:
    log = _failing_git(on_path, failures=100, message="fatal: index file corrupt")
    write(workspace / "a.txt", "a\n")
    sg = ShadowGit(workspace, isolated_home)
    with pytest.raises(CheckpointError, match=r"git add failed: fatal: index file corrupt"):
        await sg.commit("broken")
    assert log.read_text(encoding="utf-8").count("add") == 1
