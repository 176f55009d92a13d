"""Whatever a sandboxed command (or a packed repository) puts in `.git` never makes pycline's own
git run a program outside the sandbox: hooks on worktree add, commit and merge; clean filters on
`@git-changes` and `@problems`; fsmonitor, diff and merge drivers, a signing program."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.app.gitrepo import make_repo, run_git
from tests.security.attack import COMPLETE, command, results, run, scripted, write_file

HOOKS = (
    "post-checkout",
    "pre-commit",
    "prepare-commit-msg",
    "commit-msg",
    "post-commit",
    "pre-merge-commit",
    "post-merge",
    "reference-transaction",
    "post-index-change",
    "pre-auto-gc",
)


def _trap(folder: Path, marker: Path) -> Path:
    """A program that records each time something runs it (also on PATH as `pycline-trap`)."""
    (folder / "bin").mkdir(exist_ok=True)
    script = folder / "bin" / "pycline-trap"
    script.write_text(f'#!/bin/sh\necho "ran: $0 $*" >> {marker}\ncat\n', encoding="utf-8")
    script.chmod(0o755)
    return script


def _path_with(trap: Path) -> dict[str, str]:
    return {"PATH": f"{trap.parent}{os.pathsep}{os.environ['PATH']}"}


def _arming_commands() -> list[str]:
    """What a hostile command run in the sandbox does to the repository's `.git`, naming a
    program it wants run outside (`pycline-trap`, on PATH)."""
    hooks = " ".join(HOOKS)
    return [
        f"for h in {hooks}; do printf '#!/bin/sh\\npycline-trap hook $0\\n' > .git/hooks/$h && "
        "chmod +x .git/hooks/$h; done; ls .git/hooks",
        "mkdir -p evil && cp .git/hooks/* evil/ ; git config core.hooksPath evil; "
        "git config core.fsmonitor pycline-trap; git config filter.f.clean pycline-trap; "
        "git config diff.d.textconv pycline-trap; git config merge.m.driver pycline-trap; "
        "git config gpg.program pycline-trap; git config commit.gpgSign true",
        "printf '* filter=f diff=d merge=m\\n' > .gitattributes",
        # Replacing the read-only parts wholesale: move the folder away and back.
        "mv .git .git-old && cp -r .git-old .git && echo pwned > .git/hooks/pre-commit; "
        "mv .git-old .git 2>/dev/null; mv .git/config .git/config.old; true",
    ]


def _arm_as_packed(repo: Path, trap: Path) -> None:
    """The same, as a repository that arrives armed (a tarball with its `.git`)."""
    (repo / ".gitattributes").write_text("* filter=f diff=d merge=m\n", encoding="utf-8")
    run_git(repo, "add", ".gitattributes")
    run_git(repo, "commit", "-qm", "attributes")
    for name in HOOKS:
        hook = repo / ".git" / "hooks" / name
        hook.write_text(f"#!/bin/sh\n{trap} hook $0\n", encoding="utf-8")
        hook.chmod(0o755)
    with (repo / ".git" / "config").open("a", encoding="utf-8") as config:
        config.write(
            f"[core]\n\tfsmonitor = {trap}\n\thooksPath = {repo / '.git' / 'hooks'}\n"
            f'[filter "f"]\n\tclean = {trap}\n\tsmudge = {trap}\n\trequired = true\n'
            f'[diff "d"]\n\ttextconv = {trap}\n\tcommand = {trap}\n'
            f'[merge "m"]\n\tdriver = {trap}\n'
            f"[merge]\n\tdefault = m\n"
            f"[gpg]\n\tprogram = {trap}\n[commit]\n\tgpgSign = true\n"
        )


@pytest.mark.parametrize("armed_by", ["sandboxed command", "packed repository"])
def test_worktree_tasks_run_no_hook_filter_or_driver_from_the_repository(
    armed_by: str, isolated_home: Path, tmp_path: Path
) -> None:
    marker = tmp_path / "ran.txt"
    trap = _trap(tmp_path, marker)
    repo = make_repo(tmp_path / "repo", {"README.md": "hello\n", "src/a.txt": "a\n"})
    first_saw = ""
    if armed_by == "sandboxed command":
        from pycline.terminal.sandbox import bwrap_path

        assert bwrap_path() is not None, "bubblewrap (bwrap) must be installed for this test"
        replies = [command(c) for c in _arming_commands()] + [COMPLETE]
        first = scripted(repo, isolated_home, replies, env=_path_with(trap))
        assert first.returncode == 0, first.stderr
        first_saw = results(isolated_home)
        (isolated_home / "tasks").rename(tmp_path / "first-tasks")
    else:
        _arm_as_packed(repo, trap)
    second = scripted(
        repo,
        isolated_home,
        [write_file("src/b.txt", "new file"), COMPLETE],
        "--worktree=w",
        "--on-finish",
        "merge",
        "--yes",
        env=_path_with(trap),
    )
    assert not marker.exists(), marker.read_text(encoding="utf-8")
    if armed_by == "sandboxed command":
        assert "Read-only file system" in first_saw and "Device or resource busy" in first_saw
    assert second.returncode == 0, second.stderr
    merged = subprocess.run(
        ["git", "-c", f"core.hooksPath={os.devnull}", "show", "main:src/b.txt"],
        cwd=repo, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert merged.stdout == "new file\n", second.stdout + merged.stderr


def _armed_repo_with_changes(tmp_path: Path, trap: Path) -> Path:
    repo = make_repo(tmp_path / "repo", {"a.txt": "one\n", "b.py": "x = 1\n"})
    _arm_as_packed(repo, trap)
    (repo / "a.txt").write_text("two\n", encoding="utf-8")
    (repo / "b.py").write_text("x = 2\n", encoding="utf-8")
    (repo / "c.txt").write_text("untracked\n", encoding="utf-8")
    return repo


@pytest.mark.parametrize("mention", ["@git-changes", "@problems", "@{head}"])
def test_mentions_run_no_filter_or_driver_from_the_repository(
    mention: str, isolated_home: Path, tmp_path: Path
) -> None:
    marker = tmp_path / "ran.txt"
    trap = _trap(tmp_path, marker)
    repo = _armed_repo_with_changes(tmp_path, trap)
    head = run_git(repo, "rev-parse", "HEAD").strip()
    script = isolated_home / "s.json"
    script.write_text(json.dumps([COMPLETE]), encoding="utf-8")
    proc = run(
        repo,
        isolated_home,
        "--provider",
        "scripted",
        "--script",
        str(script),
        "--yes",
        task=f"look at {mention.format(head=head[:10])}",
    )
    assert proc.returncode == 0, proc.stderr
    assert not marker.exists(), marker.read_text(encoding="utf-8")
    if mention == "@git-changes":
        assert "-one\n+two" in results(isolated_home)


def test_a_config_that_includes_a_work_tree_file_is_not_used(
    isolated_home: Path, tmp_path: Path
) -> None:
    """A sandboxed command could rewrite an included file between our look and git's."""
    marker = tmp_path / "ran.txt"
    trap = _trap(tmp_path, marker)
    repo = make_repo(tmp_path / "repo", {"a.txt": "one\n"})
    with (repo / ".git" / "config").open("a", encoding="utf-8") as config:
        config.write("[include]\n\tpath = ../extra.cfg\n")
    (repo / "extra.cfg").write_text(f'[filter "f"]\n\tclean = {trap}\n', encoding="utf-8")
    (repo / ".gitattributes").write_text("* filter=f\n", encoding="utf-8")
    (repo / "a.txt").write_text("two\n", encoding="utf-8")
    script = isolated_home / "s.json"
    script.write_text(json.dumps([COMPLETE]), encoding="utf-8")
    proc = run(
        repo,
        isolated_home,
        "--provider",
        "scripted",
        "--script",
        str(script),
        "--yes",
        task="look at @git-changes",
    )
    assert proc.returncode == 0, proc.stderr
    assert not marker.exists()
    assert "includes" in results(isolated_home)
