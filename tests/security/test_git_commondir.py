"""What git follows to another place (`.git/commondir`, `.git/gitdir`, alternates, a linked
worktree's `commondir`) cannot be planted from the sandbox: the user's own `git status` and
`git commit` afterwards, outside it, run nothing a command put there. A command's own git work
(add, commit, branch) still works inside."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from pycline.terminal.sandbox import bwrap_path
from tests.app.gitrepo import IDENTITY, make_repo, run_git
from tests.security.attack import COMPLETE, command, results, scripted
from tests.security.test_git_escalation import _path_with, _trap

PLANT_COMMONDIR = (
    "mkdir -p .git/cd && cp -r .git/HEAD .git/objects .git/refs .git/hooks .git/cd/ && "
    "printf '[core]\\n\\trepositoryformatversion = 0\\n\\tfsmonitor = pycline-trap\\n"
    "\\thooksPath = hooks\\n' > .git/cd/config && "
    "for h in pre-commit post-commit post-index-change; do "
    "printf '#!/bin/sh\\npycline-trap hook\\n' > .git/cd/hooks/$h; chmod +x .git/cd/hooks/$h; "
    "done; printf 'cd\\n' > .git/commondir; git status --short | head -3; cat .git/commondir"
)


def _users_git(repo: Path, trap: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The user's own git, outside the sandbox, with the trap program on PATH."""
    env = {**os.environ, **_path_with(trap)}
    return subprocess.run(
        ["git", *IDENTITY, *args], cwd=repo, env=env, capture_output=True, text=True,
        timeout=60, check=False,
    )  # fmt: skip


def test_a_planted_commondir_gitdir_or_alternates_is_removed_and_runs_nothing(
    isolated_home: Path, tmp_path: Path
) -> None:
    assert bwrap_path() is not None, "bubblewrap (bwrap) must be installed for this test"
    marker = tmp_path / "ran.txt"
    trap = _trap(tmp_path, marker)
    repo = make_repo(tmp_path / "repo", {"a.txt": "one\n"})
    other = make_repo(tmp_path / "other", {"b.txt": "two\n"})
    linked = tmp_path / "linked"
    run_git(repo, "worktree", "add", "-q", str(linked), "-b", "side")
    replies = [
        command(PLANT_COMMONDIR),
        command("printf '.git/cd\\n' > .git/gitdir; cat .git/gitdir"),
        command(f"echo {other}/.git/objects > .git/objects/info/alternates; "
                "cat .git/objects/info/alternates"),
        command("printf 'cd\\n' > .git/worktrees/linked/commondir; "
                "cat .git/worktrees/linked/commondir"),
        command("echo two > a.txt && git add a.txt && git -c user.name=m -c user.email=m@x "
                "commit -qm 'by the model' && git branch model-branch && git log --oneline | "
                "head -1"),
        COMPLETE,
    ]  # fmt: skip
    proc = scripted(repo, isolated_home, replies, env=_path_with(trap))
    assert proc.returncode == 0, proc.stderr
    seen = results(isolated_home)
    for name in ("commondir", "gitdir", "objects/info/alternates"):
        assert f".git/{name} was written by a command and has been removed" in seen, seen
        assert not (repo / ".git" / name).exists()
    assert "Read-only file system" in seen or "Device or resource busy" in seen
    assert (repo / ".git" / "worktrees" / "linked" / "commondir").read_text() != "cd\n"
    # The model's own git work stayed.
    assert "by the model" in run_git(repo, "log", "--oneline", "-1")
    assert "model-branch" in run_git(repo, "branch")
    # The user's own git, outside the sandbox, here and in the linked worktree.
    (repo / "a.txt").write_text("three\n", encoding="utf-8")
    for args in (("status",), ("add", "a.txt"), ("commit", "-qm", "by the user")):
        done = _users_git(repo, trap, *args)
        assert done.returncode == 0, done.stderr
    assert _users_git(linked, trap, "status").returncode == 0
    assert not marker.exists(), marker.read_text(encoding="utf-8")
