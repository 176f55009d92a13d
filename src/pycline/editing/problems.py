"""Problems after an edit (SPEC §4): report only what the edit introduced.

Problems are compared before/after by what they say, not where: an edit that moves code shifts
line numbers, and an error that was already there is not news to the model.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from pycline.editing.linters import LintProblem, commands_for, lint
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
    _before: list[Problem] | None = None

    def _commands(self) -> list[tuple[str, ...]]:
        return commands_for(self.display, self.linters)

    async def before(self, old_text: str | None) -> None:
        found: list[Problem] = []
        if old_text is not None:
            found.extend(await syntax_check(self.display, old_text))
            commands = self._commands()
            if commands and self.path.is_file():
                found.extend(_from_lint(await lint(self.path, self.cwd, commands)))
        self._before = found

    async def after(self, new_text: str) -> list[Problem]:
        found = await syntax_check(self.display, new_text)
        commands = self._commands()
        if commands:
            found.extend(_from_lint(await lint(self.path, self.cwd, commands)))
        return new_problems(self._before or [], found)


def render_problems(display: str, problems: Sequence[Problem]) -> str:
    if not problems:
        return ""
    lines = [f"New problems detected after saving the file:\n{display}"]
    lines.extend(p.render() for p in problems[:30])
    if len(problems) > 30:
        lines.append(f"- … and {len(problems) - 30} more")
    lines.append("Fix them if your edit caused them.")
    return "\n".join(lines)
