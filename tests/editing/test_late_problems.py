"""An edit waits for its language server once, for its budget; a later answer is told with the
next result instead of holding up the loop."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from pycline.editing.problems import LateProblems, Problem, ProblemCheck


class GatedServer:
    """A diagnostic source that answers the new text only once `release` is set."""

    def __init__(self) -> None:
        self.release = asyncio.Event()
        self.calls: list[tuple[str, float | None]] = []

    async def problems(
        self, path: Path, text: str, *, limit: float | None = None
    ) -> list[Problem] | None:
        self.calls.append((text, limit))
        if "broken" not in text:
            return []
        await self.release.wait()
        return [Problem("pyright", 1, 'Type "int" is not assignable to "str"')]


async def test_a_slow_server_costs_the_edit_its_budget_once_and_its_answer_comes_later(
    tmp_path: Path,
) -> None:
    target = tmp_path / "a.py"
    target.write_text('x: str = "a"\n', encoding="utf-8")
    server, late = GatedServer(), LateProblems()
    check = ProblemCheck(target, "a.py", tmp_path, {}, server, wait=0.05, late=late)
    await check.before('x: str = "a"\n')
    target.write_text("x: str = 1  # broken\n", encoding="utf-8")
    started = time.monotonic()
    assert await check.after("x: str = 1  # broken\n") == []
    assert time.monotonic() - started < 30  # bounded by the wait, not by the server
    assert late.take() == ""  # nothing to tell yet
    server.release.set()
    await late.settled()
    told = late.take()
    assert "New problems in a.py since your last edit" in told
    assert 'Type "int" is not assignable' in told
    assert late.take() == ""  # told once
    # The checks left to the background are bounded by their own, longer limit.
    assert all(limit is not None and limit > 1 for _, limit in server.calls)


async def test_a_server_in_time_reports_with_the_edit_and_nothing_comes_later(
    tmp_path: Path,
) -> None:
    target = tmp_path / "a.py"
    server, late = GatedServer(), LateProblems()
    server.release.set()
    check = ProblemCheck(target, "a.py", tmp_path, {}, server, wait=30, late=late)
    await check.before('x: str = "a"\n')
    found = await check.after("x: str = 1  # broken\n")
    assert [p.source for p in found] == ["pyright"]
    await late.settled()
    assert late.take() == ""


async def test_a_denied_edit_leaves_no_check_running(tmp_path: Path) -> None:
    server, late = GatedServer(), LateProblems()
    check = ProblemCheck(tmp_path / "a.py", "a.py", tmp_path, {}, server, wait=0.05, late=late)
    await check.before("x = 1  # broken\n")  # its baseline waits on the gate
    check.discard()
    await asyncio.sleep(0)
    assert check._baseline is not None and check._baseline.cancelled()
