"""Runs git against the shadow repository: fixed environment, asyncio subprocess, hard timeout."""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from pathlib import Path

from pycline.checkpoints.types import CheckpointError
from pycline.workspace import fifo_guard

DEFAULT_TIMEOUT = 120.0

# Passed on every command line so they win over anything in any config file, including one a
# user might have edited inside the shadow directory.
_FORCED_CONFIG = (
    "core.quotepath=off",
    "core.autocrlf=false",
    "core.fsmonitor=false",
    # No hook runs: whatever was put in the shadow dir's hooks folder, or names another one.
    f"core.hooksPath={os.devnull}",
    "core.untrackedCache=false",
    "diff.external=",
    "gc.auto=0",
    "maintenance.auto=false",
    "commit.gpgSign=false",
    "submodule.recurse=false",
)

IDENTITY = {
    "GIT_AUTHOR_NAME": "pycline",
    "GIT_AUTHOR_EMAIL": "checkpoints@pycline.invalid",
    "GIT_COMMITTER_NAME": "pycline",
    "GIT_COMMITTER_EMAIL": "checkpoints@pycline.invalid",
}


@dataclass(frozen=True, slots=True)
class GitResult:
    returncode: int
    stdout: bytes
    stderr: bytes

    @property
    def text(self) -> str:
        return self.stdout.decode("utf-8", errors="surrogateescape").strip()


def git_environment(git_dir: Path, work_tree: Path, base: Mapping[str, str]) -> dict[str, str]:
    """The environment of every shadow git call, built from `base` (normally `os.environ`).

    Every inherited GIT_* variable is dropped: GIT_INDEX_FILE, GIT_OBJECT_DIRECTORY, GIT_CONFIG_*
    and friends would silently point our commands at the user's repository or its config.
    """
    env = {k: v for k, v in base.items() if not k.startswith("GIT_")}
    env.update(IDENTITY)
    env.update(
        {
            "GIT_DIR": str(git_dir),
            "GIT_WORK_TREE": str(work_tree),
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_CONFIG_GLOBAL": os.devnull,
            "GIT_ATTR_NOSYSTEM": "1",
            "GIT_TERMINAL_PROMPT": "0",
            # GIT_CONFIG_GLOBAL does not cover the default global ignore and attributes files,
            # which are looked up under XDG_CONFIG_HOME (else HOME); point both at nothing.
            "XDG_CONFIG_HOME": str(git_dir / "no-xdg-config"),
            "HOME": str(git_dir),
            # Stable English messages; paths are read with -z so the locale never mangles them.
            "LC_ALL": "C",
            "LANGUAGE": "C",
        }
    )
    return env


class GitRunner:
    def __init__(
        self,
        git_dir: Path,
        work_tree: Path,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        executable: str | None = None,
    ) -> None:
        self.git_dir = git_dir
        self.work_tree = work_tree
        self.timeout = timeout
        self._executable = executable
        self._env = git_environment(git_dir, work_tree, os.environ)
        self.spawned = 0  # git processes started, for benchmarks and diagnostics

    def executable(self) -> str:
        if self._executable is None:
            found = shutil.which("git")
            if found is None:
                raise CheckpointError("checkpoints need git, and git is not on PATH")
            self._executable = found
        return self._executable

    async def run(
        self,
        *args: str,
        stdin: bytes | None = None,
        ok: Collection[int] = (0,),
        timeout: float | None = None,
        config: Collection[str] = (),
    ) -> GitResult:
        """Run `git <args>`; raise CheckpointError on a return code outside `ok` or on timeout.

        On timeout or cancellation the whole process group is killed (git forks helpers such as
        pack-objects) and a lock file the killed git may have left in the shadow dir is removed,
        so the next call does not fail on a stale `index.lock`.
        """
        cmd = [self.executable()]
        for item in (*_FORCED_CONFIG, *config):
            cmd += ["-c", item]
        cmd += args
        limit = self.timeout if timeout is None else timeout
        self.spawned += 1
        proc = await asyncio.create_subprocess_exec(
            *cmd,
            stdin=asyncio.subprocess.PIPE if stdin is not None else asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            cwd=self.work_tree,
            env=self._env,
            start_new_session=True,
        )
        try:
            out, err = await asyncio.wait_for(
                fifo_guard.communicate(proc, self.work_tree, stdin), limit
            )
        except TimeoutError:
            await self._kill(proc)
            raise CheckpointError(f"git {args[0]} timed out after {limit:g}s") from None
        except asyncio.CancelledError:
            await self._kill(proc)
            raise
        code = proc.returncode
        assert code is not None  # communicate() returned, so the process has exited
        if code not in ok:
            message = err.decode("utf-8", errors="replace").strip() or f"exit status {code}"
            raise CheckpointError(f"git {args[0]} failed: {message}")
        return GitResult(code, out, err)

    async def _kill(self, proc: asyncio.subprocess.Process) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        # Reaping must finish even if we are being cancelled, or the child lingers as a zombie.
        await asyncio.shield(proc.wait())
        # Only our own git uses this lock file, and it is dead now.
        with contextlib.suppress(FileNotFoundError):
            (self.git_dir / "index.lock").unlink()
