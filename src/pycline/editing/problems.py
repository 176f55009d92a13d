"""Problems after an edit (SPEC §4): report only what the edit introduced.

Problems are compared before/after by what they say, not where: an edit that moves code shifts
line numbers, and an error that was already there is not news to the model.

Three sources: tree-sitter syntax errors (always), configured linters, and a language server
(`DiagnosticSource`, optional). The server's answer for the old text is only trusted as a
baseline when it arrived; without one, nothing it says can be called new.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, runtime_checkable

from pycline.editing.linters import Confine, LintProblem, commands_for, lint
from pycline.editing.syntax import syntax_problems


@dataclass(frozen=True, slots=True)
class Problem:
    source: str  # "syntax" or the linter's command name
    line: int | None
    message: str

    @property
    def key(self) -> tuple[str, str]:
        return (self.source, self.message)

    def render(self) -> str:
        where = f"Line {self.line}: " if self.line is not None else ""
        return f"- [{self.source}] {where}{self.message}"


@runtime_checkable
class DiagnosticSource(Protocol):
    async def problems(self, path: Path, text: str) -> list[Problem] | None:
        """The errors found in `text` as the content of `path`; None when there is no answer
        (no server for the file, or none in time)."""
        ...


def new_problems(before: Sequence[Problem], after: Sequence[Problem]) -> list[Problem]:
    remaining = Counter(p.key for p in before)
    fresh: list[Problem] = []
    for problem in after:
        if remaining[problem.key] > 0:
            remaining[problem.key] -= 1
        else:
            fresh.append(problem)
    return fresh


async def syntax_check(display: str, text: str) -> list[Problem]:
    found = await asyncio.to_thread(syntax_problems, display, text)
    return [Problem("syntax", p.line, p.message) for p in found]


def _from_lint(found: Sequence[LintProblem]) -> list[Problem]:
    return [Problem(p.tool, p.line, p.message) for p in found]


@dataclass(slots=True)
class ProblemCheck:
    """One edit's check: `before()` while the old file is still on disk, `after()` once saved."""

    path: Path
    display: str
    cwd: Path
    linters: Mapping[str, Sequence[str]]
    server: DiagnosticSource | None = None
    confine: Confine | None = None  # how linters run (the commands' sandbox)
    _before: list[Problem] | None = None
    _old_text: str | None = None
    _server_before: list[Problem] | None = None

    def _commands(self) -> list[tuple[str, ...]]:
        return commands_for(self.display, self.linters)

    async def before(self, old_text: str | None) -> None:
        self._old_text = old_text
        server = asyncio.create_task(self._server_problems(old_text))
        found: list[Problem] = []
        try:
            if old_text is not None:
                found.extend(await syntax_check(self.display, old_text))
                commands = self._commands()
                if commands and self.path.is_file():
                    found.extend(
                        _from_lint(await lint(self.path, self.cwd, commands, confine=self.confine))
                    )
            self._server_before = await server
        except BaseException:
            server.cancel()
            raise
        self._before = found

    async def _server_problems(self, text: str | None) -> list[Problem] | None:
        if self.server is None:
            return None
        if text is None:
            return []  # a new file had no problems
        return await self.server.problems(self.path, text)

    async def after(self, new_text: str) -> list[Problem]:
        found = await syntax_check(self.display, new_text)
        commands = self._commands()
        if commands:
            found.extend(
                _from_lint(await lint(self.path, self.cwd, commands, confine=self.confine))
            )
        fresh = new_problems(self._before or [], found)
        if self.server is not None:
            baseline = self._server_before
            if baseline is None:  # the server was not ready in time for the old text
                baseline = await self._server_problems(self._old_text)
            if baseline is not None:
                reported = await self.server.problems(self.path, new_text)
                if reported is not None:
                    fresh.extend(new_problems(baseline, reported))
        return fresh


def render_problems(display: str, problems: Sequence[Problem]) -> str:
    if not problems:
        return ""
    lines = [f"New problems detected after saving the file:\n{display}"]
    lines.extend(p.render() for p in problems[:30])
    if len(problems) > 30:
        lines.append(f"- … and {len(problems) - 30} more")
    lines.append("Fix them if your edit caused them.")
    return "\n".join(lines)
