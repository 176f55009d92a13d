"""Problems after an edit (SPEC §4): report only what the edit introduced.

Problems are compared before/after by what they say, not where: an edit that moves code shifts
line numbers, and an error that was already there is not news to the model.

Three sources: tree-sitter syntax errors (always), configured linters, and a language server
(`DiagnosticSource`, optional). The server's answer for the old text is only trusted as a
baseline when it arrived; without one, nothing it says can be called new.

The server is the slow one (a cold project load takes seconds), so an edit waits for it once,
for at most `wait` seconds from its approval (`approved()`), whatever the check needs (the old text's baseline,
a restart, the new text). What it has not answered by then goes on in the background and
reaches the model with its next tool result (`LateProblems`), so the loop never stands still
for a language server.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, runtime_checkable

from pycline.editing.linters import Confine, LintProblem, commands_for, lint
from pycline.editing.syntax import syntax_problems

log = logging.getLogger(__name__)


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


# How long a check left to the background may take before it is given up.
LATE_LIMIT = 60.0


@runtime_checkable
class DiagnosticSource(Protocol):
    async def problems(
        self, path: Path, text: str, *, limit: float | None = None
    ) -> list[Problem] | None:
        """The errors found in `text` as the content of `path`; None when there is no answer
        (no server for the file, or none within `limit` seconds; None: the source's own)."""
        ...


class LateProblems:
    """Server checks that outlived their edit's wait: what they found, told once each."""

    def __init__(self) -> None:
        self._pending: list[tuple[str, asyncio.Task[list[Problem]]]] = []

    def add(self, display: str, check: asyncio.Task[list[Problem]]) -> None:
        check.add_done_callback(_retrieve)
        self._pending.append((display, check))

    def take(self) -> str:
        """The problems found since the last call by the checks that have finished."""
        parts: list[str] = []
        waiting: list[tuple[str, asyncio.Task[list[Problem]]]] = []
        for display, check in self._pending:
            if not check.done():
                waiting.append((display, check))
            elif not check.cancelled() and check.exception() is None and check.result():
                parts.append(render_late(display, check.result()))
        self._pending = waiting
        return "\n\n".join(parts)

    async def settled(self) -> None:
        """Wait for every pending check to end (each is bounded by its own limit)."""
        await asyncio.gather(*(c for _, c in self._pending), return_exceptions=True)

    async def cancel(self) -> None:
        pending, self._pending = self._pending, []
        for _, check in pending:
            check.cancel()
        for _, check in pending:
            with contextlib.suppress(asyncio.CancelledError):
                await check


def _retrieve(check: asyncio.Task[list[Problem]]) -> None:
    if not check.cancelled() and (exc := check.exception()) is not None:
        log.warning("a late problem check failed: %r", exc)


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
    """One edit's check: `before()` while the old file is still on disk, `after()` once saved;
    `discard()` when the edit is not saved."""

    path: Path
    display: str
    cwd: Path
    linters: Mapping[str, Sequence[str]]
    server: DiagnosticSource | None = None
    confine: Confine | None = None  # how linters run (the commands' sandbox)
    wait: float | None = None  # the edit's one wait for the server (None: the server's budget)
    late: LateProblems | None = None  # where an answer later than `wait` goes
    _before: list[Problem] | None = None
    _old_text: str | None = None
    _baseline: asyncio.Task[list[Problem] | None] | None = None
    _deadline: float | None = None  # when the wait ends (loop time), set at the approval

    def _commands(self) -> list[tuple[str, ...]]:
        return commands_for(self.display, self.linters)

    async def before(self, old_text: str | None) -> None:
        self._old_text = old_text
        if self.server is not None and self._baseline is None:
            # Started now, awaited only after the save: it runs while the user looks.
            self._baseline = asyncio.create_task(self._server_problems(old_text))
        found: list[Problem] = []
        if old_text is not None:
            found.extend(await syntax_check(self.display, old_text))
            commands = self._commands()
            if commands and self.path.is_file():
                found.extend(
                    _from_lint(await lint(self.path, self.cwd, commands, confine=self.confine))
                )
        self._before = found

    def approved(self) -> None:
        """The edit was approved: its wait for the server runs from now."""
        if self.wait is not None:
            self._deadline = asyncio.get_running_loop().time() + self.wait

    def discard(self) -> None:
        if self._baseline is not None:
            self._baseline.cancel()

    async def _server_problems(self, text: str | None) -> list[Problem] | None:
        if self.server is None:
            return None
        if text is None:
            return []  # a new file had no problems
        # The edit's own wait is bounded by `after`; the server check may outlive it.
        return await self.server.problems(self.path, text, limit=self._limit)

    @property
    def _limit(self) -> float | None:
        return LATE_LIMIT if self.late is not None else None

    async def after(self, new_text: str) -> list[Problem]:
        found = await syntax_check(self.display, new_text)
        commands = self._commands()
        if commands:
            found.extend(
                _from_lint(await lint(self.path, self.cwd, commands, confine=self.confine))
            )
        fresh = new_problems(self._before or [], found)
        if self.server is not None:
            fresh.extend(await self._server_after(new_text))
        return fresh

    async def _server_after(self, new_text: str) -> list[Problem]:
        check = asyncio.create_task(self._server_fresh(new_text))
        wait = self.wait
        if self._deadline is not None:
            wait = max(self._deadline - asyncio.get_running_loop().time(), 0.0)
        done, _ = await asyncio.wait({check}, timeout=wait)
        if check in done:
            return check.result()
        if self.late is not None:
            self.late.add(self.display, check)
        else:
            check.cancel()
        return []

    async def _server_fresh(self, new_text: str) -> list[Problem]:
        assert self.server is not None
        baseline = await self._baseline if self._baseline is not None else None
        if baseline is None:  # the server was not ready in time for the old text
            baseline = await self._server_problems(self._old_text)
        if baseline is None:
            return []
        reported = await self.server.problems(self.path, new_text, limit=self._limit)
        return new_problems(baseline, reported) if reported is not None else []


def render_problems(display: str, problems: Sequence[Problem]) -> str:
    if not problems:
        return ""
    lines = [f"New problems detected after saving the file:\n{display}"]
    lines.extend(p.render() for p in problems[:30])
    if len(problems) > 30:
        lines.append(f"- … and {len(problems) - 30} more")
    lines.append("Fix them if your edit caused them.")
    return "\n".join(lines)


def render_late(display: str, problems: Sequence[Problem]) -> str:
    lines = [f"New problems in {display} since your last edit of it (found after that result):"]
    lines.extend(p.render() for p in problems[:30])
    if len(problems) > 30:
        lines.append(f"- … and {len(problems) - 30} more")
    lines.append("Fix them if your edit caused them.")
    return "\n".join(lines)
