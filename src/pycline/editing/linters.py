"""The project's own linters, run on an edited file (`linters`: glob -> command list).

Example: {"*.py": ["ruff", "check", "--output-format=concise", "{file}"]}. Output lines of the
form `path:line[:col]: message` that name the file become problems; everything else is ignored.
A linter that is not installed or does not finish in time is skipped, never an error.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

_LINE = re.compile(r"^(?P<file>.+?):(?P<line>\d+)(?::(?P<col>\d+))?:?\s+(?P<message>\S.*)$")
DEFAULT_TIMEOUT = 60.0
# How a linter is started: its argv and environment, as the caller contains it (a sandbox).
Confine = Callable[[Sequence[str]], tuple[list[str], dict[str, str]]]


@dataclass(frozen=True, slots=True)
class LintProblem:
    tool: str
    line: int | None
    message: str


def commands_for(display: str, linters: Mapping[str, Sequence[str]]) -> list[tuple[str, ...]]:
    path = PurePosixPath(display)
    return [tuple(cmd) for glob, cmd in linters.items() if path.match(glob)]


async def lint(
    path: Path,
    cwd: Path,
    commands: Sequence[Sequence[str]],
    *,
    timeout: float = DEFAULT_TIMEOUT,
    confine: Confine | None = None,
) -> list[LintProblem]:
    """`confine`: how to run each linter (it reads files commands wrote: eslint runs the
    project's config, which is code); without one it runs as it is."""
    try:
        shown = str(path.relative_to(cwd))
    except ValueError:
        shown = str(path)
    found: list[LintProblem] = []
    for command in commands:
        argv = [part.replace("{file}", shown) for part in command]
        env = None
        if confine is not None:
            try:
                argv, env = confine(argv)
            except RuntimeError:  # the sandbox it must run in cannot be set up: skipped
                continue
        output = await _run(argv, cwd, timeout, env)
        if output is not None:
            found.extend(_parse(output, path, Path(command[0]).name))
    return found


async def _run(
    argv: list[str], cwd: Path, timeout: float, env: dict[str, str] | None
) -> str | None:
    try:
        process = await asyncio.create_subprocess_exec(
            *argv,
            cwd=cwd,
            env=env,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
        )
    except OSError:
        return None  # not installed (FileNotFoundError) or not executable
    try:
        out, _ = await asyncio.wait_for(process.communicate(), timeout)
    except TimeoutError:
        return None
    finally:
        if process.returncode is None:  # timed out or cancelled: do not leave it running
            with contextlib.suppress(ProcessLookupError):
                process.kill()
            await process.wait()
    return out.decode("utf-8", errors="replace")


def _parse(output: str, path: Path, tool: str) -> list[LintProblem]:
    found: list[LintProblem] = []
    for raw in output.splitlines():
        match = _LINE.match(raw.strip())
        if match is None or not match.group("file").endswith(path.name):
            continue
        found.append(LintProblem(tool, int(match.group("line")), match.group("message").strip()))
    return found
