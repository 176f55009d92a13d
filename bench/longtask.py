"""Long scripted tasks: does a turn cost the same at turn 800 as at turn 8?

Run: .venv/bin/python bench/longtask.py [--turns 50 200 800] [--repeat 5]

Each run is a fresh process going through the real `Task` loop, tools, context manager and
persistence, with a scripted model: every turn rewrites one of 40 existing 2 KB files, the last one
completes. The measure is "time per turn over the last 10% of a task's turns / over the first 10%"
(target ≤ 1.2), taken with care, because a turn lasts about 2 ms and the machine is shared:
  - warm-up: a 20-turn task runs first in the same process, so lazy imports, the interpreter
    specialising hot code and caches filling are not charged to the first turns measured; the
    first turn (it lists the workspace for the first request) and the last (it completes the task
    and folds the journal) are left out of the windows;
  - same work in both windows: every turn rewrites an existing file (creating one skips the diff
    against the old text and made early turns cheaper);
  - medians per window, runs repeated (`--repeat`, fresh processes), windows pooled over the runs;
    each run's own ratio is shown as lowest–highest;
  - CPU time of the event-loop thread beside wall time: other processes stretch wall time a lot
    and CPU time a little;
  - turn about: load from other processes comes in bursts of seconds while a whole 200-turn task
    lasts well under one, so the first and last windows of one task see different loads. The
    "turn about" columns take the long task's last 10% and a fresh task's first 10% in the same
    process, one turn each in alternation (a turnstile in the scripted model), so both windows
    see the same load; time parked at the turnstile is not counted.
Also reported per size: bytes the process wrote per turn (`wchar`, first and last 10%; flat:
equal), the share of wall time the event loop spent inside persistence calls (blocked, target
< 5%), the share the task waited for its writes to land (waited; the loop runs meanwhile), time in
the garbage collector, peak resident memory. The load average before and after is printed: quote
it with the figures. The same file runs against older code (it only uses the `Task` constructor);
persistence is timed by wrapping whichever save methods that code has.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import gc
import inspect
import itertools
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pycline import events
from pycline.app.builders import wiring
from pycline.core.approval import AutoApprove
from pycline.core.task import Task, TaskSettings
from pycline.providers.base import ModelInfo, UsageChunk
from pycline.providers.scripted import ScriptedProvider, ScriptedReply
from pycline.storage import task_store
from pycline.storage.records import TaskRecord

WARMUP_TURNS = 20
CONTENT = "".join(f"line {i:04d} of a generated file, long enough to matter\n" for i in range(36))


FILES = 40


def _write(i: int) -> str:
    path = f"src/file_{i % FILES:02d}.txt"
    return f"Writing {path}.\n<write_to_file>\n<path>{path}</path>\n<content>\n{i}\n{CONTENT}</content>\n</write_to_file>"


COMPLETE = "<attempt_completion>\n<result>done</result>\n</attempt_completion>"


class Timer:
    def __init__(self) -> None:
        self.blocked = 0.0
        self.waited = 0.0

    def wrap(self, owner: Any, name: str, *, waits: bool = False) -> None:
        original = getattr(owner, name, None)
        if original is None:
            return
        if inspect.iscoroutinefunction(original):

            @functools.wraps(original)
            async def timed_async(*args: Any, **kwargs: Any) -> Any:
                started = time.perf_counter()
                try:
                    return await original(*args, **kwargs)
                finally:
                    self.waited += time.perf_counter() - started

            setattr(owner, name, timed_async)
            return

        @functools.wraps(original)
        def timed(*args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                elapsed = time.perf_counter() - started
                if waits:
                    self.waited += elapsed
                else:
                    self.blocked += elapsed

        setattr(owner, name, timed)


# At each request: wall, process CPU, event-loop thread CPU, GC seconds, full GCs, bytes written.
Mark = tuple[float, float, float, float, int, int]


class GcClock:
    """Seconds spent in the garbage collector, and full (oldest-generation) collections."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self.full = 0
        self._started = 0.0
        gc.callbacks.append(self._tick)

    def _tick(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._started = time.perf_counter()
            return
        self.seconds += time.perf_counter() - self._started
        self.full += info.get("generation") == 2


class Host:
    def __init__(self, clock: GcClock) -> None:
        self.clock = clock
        self.turn_marks: list[Mark] = []

    def mark(self) -> Mark:
        return (
            time.perf_counter(),
            time.process_time(),
            time.thread_time(),
            self.clock.seconds,
            self.clock.full,
            _wchar(),
        )

    def say(self, event: events.Event) -> None:
        if event.kind == "request_started":
            self.turn_marks.append(self.mark())

    async def ask(self, question: Any) -> events.Answer:
        if hasattr(events, "APPROVE"):  # answers name an option
            return events.Answer(question.options[0].id)
        return events.Answer("yes")  # older code: yes/no answers


def _wchar() -> int:
    for line in Path("/proc/self/io").read_text().splitlines():
        if line.startswith("wchar:"):
            return int(line.split()[1])
    return 0


def _instrument(timer: Timer) -> None:
    folder = task_store.TaskFolder
    for name in ("save_api_history", "save_ui_messages", "save_record", "save_context"):
        timer.wrap(folder, name)
    try:
        from pycline.storage import journal
    except ImportError:
        return
    recorder = journal.TaskRecorder
    for name in (
        "history_changed",
        "ui_changed",
        "ui_edited",
        "record_changed",
        "context_changed",
        "events",
    ):
        timer.wrap(recorder, name)
    timer.wrap(recorder, "flush")
    timer.wrap(recorder, "close")


class Turnstile:
    """Lets a task's turns through one at a time once it reaches request `park_at`: the model
    parks each request until `step()` opens the gate. A gated turn's time runs from the gate
    opening to the next request, so time spent parked is not counted."""

    def __init__(self, park_at: int) -> None:
        self.park_at = park_at
        self.requests = 0
        self.ended = False
        self.turns: list[tuple[float, float]] = []  # (wall, loop-thread CPU) of each gated turn
        self._go = asyncio.Event()
        self._halted = asyncio.Event()  # parked at the gate, or the task ended
        self._started: tuple[float, float] | None = None

    async def enter(self) -> None:
        if self._started is not None:
            wall, cpu = self._started
            self.turns.append((time.perf_counter() - wall, time.thread_time() - cpu))
            self._started = None
        self.requests += 1
        if self.requests < self.park_at:
            return
        self._halted.set()
        await self._go.wait()
        self._go.clear()
        self._started = (time.perf_counter(), time.thread_time())

    def end(self) -> None:
        self.ended = True
        self._halted.set()

    async def halted(self) -> None:
        await self._halted.wait()
        self._halted.clear()

    async def step(self) -> None:
        """One turn: open the gate, wait until the task parks again (or ends)."""
        self._go.set()
        await self.halted()


class GatedModel(ScriptedProvider):
    turnstile: Turnstile | None = None

    async def stream(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        if self.turnstile is not None:
            await self.turnstile.enter()
        async with contextlib.aclosing(super().stream(*args, **kwargs)) as chunks:
            async for chunk in chunks:
                yield chunk


async def _paired(turns: int, root: Path) -> dict[str, Any]:
    """The last 10% of a long task's turns against the first 10% of a fresh task's, run turn
    about in one process: both windows see the same load from the rest of the machine."""
    assert (await _task(WARMUP_TURNS, root / "warm-up", Host(GcClock())).start("w")).completed
    tenth = max(1, (turns - 2) // 10)
    # The long task runs alone up to its last tenth; the fresh one is gated from its start.
    old_gate, young_gate = Turnstile(turns - tenth), Turnstile(1)
    old = _task(turns, root / "old", Host(GcClock()), old_gate)
    young = _task(tenth + 2, root / "young", Host(GcClock()), young_gate)
    running = asyncio.ensure_future(old.start("write many files"))
    running.add_done_callback(lambda _: old_gate.end())
    await old_gate.halted()
    fresh = asyncio.ensure_future(young.start("write a few files"))
    fresh.add_done_callback(lambda _: young_gate.end())
    await young_gate.halted()
    while not (old_gate.ended and young_gate.ended):
        for gate in (old_gate, young_gate):
            if not gate.ended:
                await gate.step()
    assert running.result().completed and fresh.result().completed
    # The fresh task's first turn lists the workspace for its first request: left out.
    return {"turns": turns, "old": old_gate.turns, "young": young_gate.turns[1:]}


def _task(turns: int, root: Path, host: Host, gate: Turnstile | None = None) -> Task:
    home, workspace = root / "home", root / "ws"
    (workspace / "src").mkdir(parents=True)
    # Every turn rewrites a file that exists: creating one is cheaper (no diff against the old
    # text), which would make the first turns of a task cheaper than its last ones.
    for i in range(FILES):
        (workspace / "src" / f"file_{i:02d}.txt").write_text(f"-\n{CONTENT}", encoding="utf-8")
    # Usage is given, so the scripted model does not estimate it from the whole history.
    usage = UsageChunk(input_tokens=1_000, output_tokens=100)
    texts = [_write(i) for i in range(turns - 1)] + [COMPLETE]
    provider = GatedModel([ScriptedReply(t, usage=usage) for t in texts], chunk_size=64)
    provider.turnstile = gate
    provider.model_info = ModelInfo(id="scripted", context_window=100_000_000)
    tools = wiring.default_tools(browser=False)
    folder = task_store.TaskStore(home).create()
    record = TaskRecord(id=folder.id, ts=0.0, task="long", workspace=str(workspace))
    try:  # a task put together as a session does it: capabilities, recorder on its thread
        from pycline.app.live.assembly import TaskParts, assemble
        from pycline.core.modes import ModeProfile
        from pycline.testing import default_capabilities
        from pycline.workspace.paths import Workspace
    except ImportError:
        pass
    else:
        settings = TaskSettings(auto_approve=AutoApprove(yolo=True))
        services = wiring.task_services(workspace)
        parts = TaskParts(
            folder=folder,
            record=record,
            workspace=Workspace.at(workspace),
            profiles={"act": ModeProfile(provider, tools, wiring.system_prompt(tools, workspace))},
            settings=settings,
            services=services,
            capabilities=default_capabilities(workspace, services=services, settings=settings),
        )
        return assemble(parts, host)
    kwargs: dict[str, Any] = {}
    if "recorder" in inspect.signature(Task.__init__).parameters:
        from pycline.storage.journal import TaskRecorder

        kwargs["recorder"] = TaskRecorder(folder, background=True)  # as a session runs tasks
    from pycline.workspace.paths import Workspace

    return Task(  # type: ignore[call-arg]
        provider=provider,
        tools=tools,
        host=host,
        folder=folder,
        workspace=Workspace.at(workspace),
        system_prompt=wiring.system_prompt(tools, workspace),
        record=record,
        settings=TaskSettings(auto_approve=AutoApprove(yolo=True)),
        services=wiring.task_services(workspace),
        **kwargs,
    )


async def _run(turns: int, root: Path) -> dict[str, Any]:
    timer = Timer()
    _instrument(timer)
    clock = GcClock()
    # A short task first, in its own folders: one-off costs (lazy imports, the interpreter
    # specialising hot code, caches filling) would otherwise land in the first turns measured.
    assert (await _task(WARMUP_TURNS, root / "warm-up", Host(clock)).start("warm up")).completed
    timer.blocked = timer.waited = 0.0
    host = Host(clock)
    task = _task(turns, root / "measured", host)
    started = time.perf_counter()
    outcome = await task.start("write many files")
    wall = time.perf_counter() - started
    assert outcome.completed, outcome
    marks = [*host.turn_marks, host.mark()]
    # Per turn (request to request): the differences of each mark.
    per_turn = [[b[k] - a[k] for a, b in itertools.pairwise(marks)] for k in range(6)]
    return {
        "turns": turns,
        "wall_s": wall,
        "wall": per_turn[0],
        "cpu": per_turn[1],
        "loop_cpu": per_turn[2],
        "gc": per_turn[3],
        "full_gc": per_turn[4],
        "written": per_turn[5],
        "blocked": timer.blocked,
        "waited": timer.waited,
        "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def _child(turns: int, *, paired: bool) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        result = asyncio.run((_paired if paired else _run)(turns, Path(tmp)))
    print(json.dumps(result))


def _windows(values: list[float]) -> tuple[list[float], list[float]]:
    """The first and last 10% of the turns, leaving out the first turn (it lists the workspace
    for the first request) and the last (it completes the task and folds the journal)."""
    body = values[1:-1]
    tenth = max(1, len(body) // 10)
    return body[:tenth], body[-tenth:]


def _ratio(first: list[float], last: list[float]) -> float:
    return statistics.median(last) / statistics.median(first)


@dataclass
class Summary:
    """One size over several runs: ratios from the runs' turns pooled, and each run's ratio."""

    turns: int
    runs: list[dict[str, Any]]
    pairs: list[dict[str, Any]]

    def paired(self, column: int) -> tuple[float, float, float]:
        """Old/young ratio of the turn-about runs (0: wall, 1: CPU): pooled, lowest, highest."""
        young = [t[column] for p in self.pairs for t in p["young"]]
        old = [t[column] for p in self.pairs for t in p["old"]]
        each = [
            _ratio([t[column] for t in p["young"]], [t[column] for t in p["old"]])
            for p in self.pairs
        ]
        return _ratio(young, old), min(each), max(each)

    def pooled(self, key: str) -> tuple[list[float], list[float]]:
        first: list[float] = []
        last: list[float] = []
        for run in self.runs:
            a, b = _windows(run[key])
            first += a
            last += b
        return first, last

    def ratio(self, key: str) -> float:
        return _ratio(*self.pooled(key))

    def spread(self, key: str) -> tuple[float, float]:
        ratios = [_ratio(*_windows(run[key])) for run in self.runs]
        return min(ratios), max(ratios)

    def share(self, key: str) -> float:
        spent = float(sum(r[key] for r in self.runs))
        return 100 * spent / float(sum(r["wall_s"] for r in self.runs))

    def bytes_per_turn(self) -> tuple[int, int]:
        first, last = self.pooled("written")
        return int(statistics.mean(first)), int(statistics.mean(last))


def _spread(pooled: float, lowest: float, highest: float) -> str:
    return f"{pooled:5.2f} ({lowest:.2f}–{highest:.2f})".ljust(20)


def _measure(turns: int, repeat: int) -> Summary:
    runs: list[dict[str, Any]] = []
    pairs: list[dict[str, Any]] = []
    for _ in range(repeat):
        for flag, into in (("--child", runs), ("--paired", pairs)):
            out = subprocess.run(
                [sys.executable, __file__, flag, str(turns)],
                check=True,
                capture_output=True,
                text=True,
            ).stdout
            into.append(json.loads(out.strip().splitlines()[-1]))
    return Summary(turns, runs, pairs)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--turns", type=int, nargs="+", default=[50, 200, 800])
    parser.add_argument("--repeat", type=int, default=5, help="runs per size (fresh processes)")
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--paired", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child or args.paired:
        _child(args.child or args.paired, paired=bool(args.paired))
        return 0
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    results = [_measure(turns, args.repeat) for turns in args.turns]
    print("time per turn, last 10% / first 10%: pooled over the runs (each run's lowest–highest)")
    print(
        "turns  runs  first ms  last ms  in one task: wall        cpu          "
        "turn about: wall         cpu"
    )
    for s in results:
        first, last = s.pooled("wall")
        pw, pw_lo, pw_hi = s.paired(0)
        pc, pc_lo, pc_hi = s.paired(1)
        print(
            f"{s.turns:>5}  {len(s.runs):>4}  {1000 * statistics.median(first):>8.2f}  "
            f"{1000 * statistics.median(last):>7.2f}  "
            f"{_spread(s.ratio('wall'), *s.spread('wall'))}  "
            f"{_spread(s.ratio('loop_cpu'), *s.spread('loop_cpu'))}  "
            f"{_spread(pw, pw_lo, pw_hi)}  {_spread(pc, pc_lo, pc_hi)}"
        )
    print("\nturns  bytes/turn first→last  blocked  waited  gc ms/run  peak MB")
    for s in results:
        b_first, b_last = s.bytes_per_turn()
        gc_ms = 1000 * statistics.median(sum(r["gc"]) for r in s.runs)
        peak = max(r["peak_mb"] for r in s.runs)
        print(
            f"{s.turns:>5}  {b_first:>10}→{b_last:<10}  {s.share('blocked'):>6.2f}%  "
            f"{s.share('waited'):>5.1f}%  {gc_ms:>9.1f}  {peak:>7.1f}"
        )
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
