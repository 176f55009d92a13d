"""Real git repositories for the worktree and batch tests."""

from __future__ import annotations

import subprocess
from pathlib import Path

IDENTITY = ["-c", "user.name=Test", "-c", "user.email=test@example.invalid"]


def run_git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *IDENTITY, *args], cwd=repo, check=True, capture_output=True, text=True
    ).stdout


def make_repo(path: Path, files: dict[str, str], *, branch: str = "main") -> Path:
    path.mkdir(parents=True, exist_ok=True)
    run_git(path, "init", "--quiet", "-b", branch)
    for name, text in files.items():
        (path / name).parent.mkdir(parents=True, exist_ok=True)
        (path / name).write_text(text, encoding="utf-8")
    run_git(path, "add", "-A")
    run_git(path, "commit", "--quiet", "-m", "initial")
    return path


def status(repo: Path) -> str:
    return run_git(repo, "status", "--porcelain", "--untracked-files=all")
