"""Runs git in the user's repository: asyncio subprocess, hard timeout, no inherited GIT_* paths.

The user's own git configuration applies (their identity, their signing key); only variables
that would point git at another repository, index or work tree are dropped. Nothing the
repository's own config names runs: no hook, filter, fsmonitor, diff or merge driver
(`workspace.safe_git`).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from pathlib import Path

from pycline.errors import PyclineError
from pycline.workspace import fifo_guard
from pycline.workspace.safe_git import UnsafeRepository, safe_argv

DEFAULT_TIMEOUT = 120.0
_DROPPED = ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_PREFIX")
_FALLBACK_IDENTITY = {
    "GIT_AUTHOR_NAME": "pycline",
    "GIT_AUTHOR_EMAIL": "pycline@localhost.invalid",
    "GIT_COMMITTER_NAME": "pycline",
    "GIT_COMMITTER_EMAIL": "pycline@localhost.invalid",
}


class GitError(PyclineError):
    """A git command failed or timed out in the user's repository."""


@dataclass(frozen=True, slots=True)
class GitOutput:
    code: int
    stdout: str
    stderr: str


def git_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _DROPPED}
    env.update({"GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C", "LANGUAGE": "C"})
    if extra:
        env.update(extra)
    return env


async def git(
    cwd: Path,
    *args: str,
    ok: Collection[int] = (0,),
    env: Mapping[str, str] | None = None,
    timeout: float = DEFAULT_TIMEOUT,
) -> GitOutput:
    """`git <args>` in `cwd`; GitError on an exit status outside `ok` or on timeout."""
    exe = shutil.which("git")
    if exe is None:
        raise GitError("git is not on PATH")
    full_env = git_env(env)
    try:
        argv = await safe_argv(exe, cwd, full_env, args)
    except UnsafeRepository as exc:
        raise GitError(f"git {args[0]} not run: {exc}") from None
    argv[1:1] = ["-c", "core.quotepath=off"]
    proc = await asyncio.create_subprocess_exec(
        *argv,
        cwd=cwd,
        env=full_env,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        start_new_session=True,
    )
    try:
        out, err = await asyncio.wait_for(fifo_guard.communicate(proc, cwd), timeout)
    except (TimeoutError, asyncio.CancelledError) as exc:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        await asyncio.shield(proc.wait())
        if isinstance(exc, TimeoutError):
            raise GitError(f"git {args[0]} timed out after {timeout:g}s") from None
        raise
    code = proc.returncode
    assert code is not None  # communicate() returned
    result = GitOutput(code, out.decode(errors="replace"), err.decode(errors="replace"))
    if code not in ok:
        detail = result.stderr.strip() or result.stdout.strip() or f"exit status {code}"
        raise GitError(f"git {args[0]} failed: {detail}")
    return result


async def identity_env(repo: Path) -> dict[str, str]:
    """A fallback author for commits pycline makes when the user configured none."""
    probe = await git(repo, "var", "GIT_COMMITTER_IDENT", ok=(0, 128))
    author = await git(repo, "var", "GIT_AUTHOR_IDENT", ok=(0, 128))
    return {} if probe.code == 0 and author.code == 0 else dict(_FALLBACK_IDENTITY)
