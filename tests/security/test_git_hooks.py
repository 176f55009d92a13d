"""Nothing in a git directory (the shadow checkpoint repository, or the user's own repository as
a packed project ships it) makes pycline's git commands run a program."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.security.attack import COMPLETE, scripted, write_file

HOOKS = ("pre-commit", "post-commit", "commit-msg", "reference-transaction", "post-index-change")


def _trap(folder: Path, marker: Path) -> Path:
    script = folder / "trap.sh"
    script.write_text(f'#!/bin/sh\necho "$0 $*" >> {marker}\n', encoding="utf-8")
    script.chmod(0o755)
    return script


def test_hooks_planted_in_the_shadow_repository_never_run(
    isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    marker = tmp_path / "ran.txt"
    trap = _trap(tmp_path, marker)
    first = scripted(workspace, isolated_home, [write_file("a.txt", "a"), COMPLETE], "--yes")
    assert first.returncode == 0, first.stderr
    [shadow] = list((isolated_home / "checkpoints").iterdir())
    hooks = shadow / "hooks"
    hooks.mkdir(exist_ok=True)
    for name in HOOKS:
        (hooks / name).write_text(f"#!/bin/sh\n{trap} {name}\n", encoding="utf-8")
        (hooks / name).chmod(0o755)
    with (shadow / "config").open("a", encoding="utf-8") as config:
        config.write(f"[core]\n\thooksPath = {hooks}\n\tfsmonitor = {trap}\n")
    second = scripted(workspace, isolated_home, [write_file("b.txt", "b"), COMPLETE], "--yes")
    assert second.returncode == 0, second.stderr
    assert not marker.exists(), marker.read_text(encoding="utf-8")


def test_a_packed_repositorys_git_config_runs_nothing_for_git_mentions(
    isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    marker = tmp_path / "ran.txt"
    trap = _trap(tmp_path, marker)

    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=workspace, check=True, capture_output=True)

    git("init", "-q")
    (workspace / "f.txt").write_text("one\n", encoding="utf-8")
    (workspace / ".gitattributes").write_text("*.txt diff=evil\n", encoding="utf-8")
    git("add", ".")
    git("-c", "user.name=a", "-c", "user.email=a@b", "commit", "-qm", "init", "--no-verify")
    (workspace / "f.txt").write_text("two\n", encoding="utf-8")
    with (workspace / ".git" / "config").open("a", encoding="utf-8") as config:
        config.write(
            f"[core]\n\tfsmonitor = {trap}\n\thooksPath = {tmp_path}\n"
            f'[diff "evil"]\n\ttextconv = {trap}\n\tcommand = {trap}\n'
            f"[diff]\n\texternal = {trap}\n"
        )
    head = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=workspace, capture_output=True, text=True, check=True
    ).stdout.strip()
    from tests.security.attack import run

    script = isolated_home / "s.json"
    script.write_text(f'["{COMPLETE.encode("unicode_escape").decode()}"]', encoding="utf-8")
    proc = run(
        workspace,
        isolated_home,
        "--provider",
        "scripted",
        "--script",
        str(script),
        "--yes",
        task=f"look at @git-changes and @{head[:10]}",
    )
    assert proc.returncode == 0, proc.stderr
    assert not marker.exists(), marker.read_text(encoding="utf-8")
