"""The project's own linters, run on an edited file (`linters`: glob -> command list).

Example: {"*.py": ["ruff", "check", "--output-format=concise", "{file}"]}. Output lines of the
form `path:line[:col]: message` that name the file become problems; everything else is ignored.
A linter that is not installed or does not finish in time is skipped, never an error.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

_LINE = re.compile(r"^(?P<file>.+?):(?P<line>\d+)(?::(?P<col>\d+))?:?\s+(?P<message>\S.*)$")
DEFAULT_TIMEOUT = 60.0


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
) -> list[LintProblem]:
    try:
        shown = str(path.relative_to(cwd))
    except ValueError:
        shown = str(path)
    found: list[LintProblem] = []
    for command in commands:
        argv = [part.replace("{file}", shown) for part in command]
        output = await _run(argv, cwd, timeout)
        if output is not None:
            found.extend(_parse(output, path, Path(command[0]).name))
    return found


async def _run(argv: list[str], cwd: Path, timeout: float) -> str | None:
    try:
        process = await asyncio.create_subprocess_exec(
            *argv,
            cwd=cwd,
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
