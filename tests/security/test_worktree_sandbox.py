"""A `--worktree` task's commands run under the default sandbox: the worktree lives inside
PYCLINE_HOME, which the sandbox covers, and the worktree must stay reachable (and its repository
readable) all the same, while the rest of PYCLINE_HOME stays hidden."""

from __future__ import annotations

from pathlib import Path

from tests.app.gitrepo import make_repo, run_git
from tests.security.attack import COMPLETE, command, results, scripted


def test_a_worktree_tasks_commands_run_in_the_sandbox(isolated_home: Path, tmp_path: Path) -> None:
    from pycline.terminal.sandbox import bwrap_path

    assert bwrap_path() is not None, "bubblewrap (bwrap) must be installed for this test"
    (isolated_home / "secrets.json").write_text('{"openai": "sk-HOME-SECRET-4c1"}')
    repo = make_repo(tmp_path / "repo", {"README.md": "hello\n"})
    replies = [
        command("echo built > made.txt && cat made.txt README.md"),
        command("git status --short && git log --oneline | wc -l"),
        command(f"cat {isolated_home}/secrets.json; ls {isolated_home}"),
        COMPLETE,
    ]
    proc = scripted(repo, isolated_home, replies, "--worktree=boxed", "--yes")
    assert proc.returncode == 0, proc.stderr
    seen = results(isolated_home)
    assert "Can't chdir" not in seen
    assert "built\nhello" in seen
    assert "?? made.txt" in seen
    assert "sk-HOME-SECRET-4c1" not in seen
    assert run_git(repo, "show", "pycline/boxed:made.txt") == "built\n"
