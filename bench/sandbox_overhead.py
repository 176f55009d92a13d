"""What the sandbox and the hardened git cost: a command's start, the user's shell capture, and a
git call in a repository someone else made.

Run: .venv/bin/python bench/sandbox_overhead.py [--runs N]
Prints medians (milliseconds): `true` run through pycline's command path without the sandbox and
inside it (bubblewrap, the home allow list, the Landlock wrapper), the one-time capture of the
user's interactive shell, one `git status` plain and through `safe_git` (which first lists the
config), and `@git-changes` on a small repository.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def _median_ms(samples: list[float]) -> float:
    return round(statistics.median(samples) * 1000, 1)


async def _command(workspace: Path, home: Path, sandboxed: bool, runs: int) -> list[float]:
    from pycline.terminal.process import ShellProcess
    from pycline.terminal.sandbox import SandboxPolicy

    policy = SandboxPolicy("workspace-write", workspace, home) if sandboxed else None
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        process = await ShellProcess.start("true", workspace, sandbox=policy)
        await process.wait(30)
        process.close()
        times.append(time.perf_counter() - started)
    return times


def _capture(workspace: Path, runs: int) -> list[float]:
    from pycline.terminal.user_shell import capture

    shell = os.environ.get("SHELL") or "/bin/bash"
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        capture(shell, workspace)
        times.append(time.perf_counter() - started)
    return times


def _repo(root: Path) -> Path:
    repo = root / "repo"
    repo.mkdir()
    git = ["git", "-c", "user.name=b", "-c", "user.email=b@b"]
    subprocess.run([*git, "init", "-q"], cwd=repo, check=True)
    for i in range(50):
        (repo / f"f{i}.txt").write_text(f"line {i}\n", encoding="utf-8")
    subprocess.run([*git, "add", "."], cwd=repo, check=True)
    subprocess.run([*git, "commit", "-qm", "init"], cwd=repo, check=True)
    for i in range(0, 50, 5):
        (repo / f"f{i}.txt").write_text(f"changed {i}\n", encoding="utf-8")
    return repo


async def _git(repo: Path, runs: int) -> tuple[list[float], list[float], list[float]]:
    from pycline.workspace.git_context import working_changes
    from pycline.workspace.ignore import IgnoreRules
    from pycline.workspace.safe_git import safe_argv

    exe = shutil.which("git") or "git"
    plain, safe, mention = [], [], []
    env = dict(os.environ)
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run([exe, "status", "--short"], cwd=repo, capture_output=True, check=True)
        plain.append(time.perf_counter() - started)
        started = time.perf_counter()
        argv = await safe_argv(exe, repo, env, ["status", "--short"])
        subprocess.run(argv, cwd=repo, capture_output=True, check=True)
        safe.append(time.perf_counter() - started)
        started = time.perf_counter()
        await working_changes(repo, ignore=IgnoreRules.load(repo))
        mention.append(time.perf_counter() - started)
    return plain, safe, mention


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=20)
    runs = parser.parse_args().runs
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        workspace = root / "project"
        workspace.mkdir()
        home = root / "home"
        home.mkdir()
        os.environ["PYCLINE_HOME"] = str(home)
        print(f"shell capture (once per session): {_median_ms(_capture(workspace, 5))} ms")
        unsandboxed = await _command(workspace, home, False, runs)
        sandboxed = await _command(workspace, home, True, runs)
        print(f"command start, no sandbox:  {_median_ms(unsandboxed)} ms")
        print(f"command start, sandboxed:   {_median_ms(sandboxed)} ms")
        plain, safe, mention = await _git(_repo(root), runs)
        print(f"git status, plain:          {_median_ms(plain)} ms")
        print(f"git status, via safe_git:   {_median_ms(safe)} ms")
        print(f"@git-changes (50 files):    {_median_ms(mention)} ms")
    sys.stdout.flush()


if __name__ == "__main__":
    asyncio.run(main())
