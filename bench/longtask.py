"""Long scripted tasks: does a turn cost the same at turn 800 as at turn 8?

Run: .venv/bin/python bench/longtask.py [--turns 50 200 800]

Each size runs in a fresh process (for a clean peak-memory figure) through the real `Task` loop,
tools, context manager and persistence, with a scripted model: every turn writes a 2 KB file, the
last one completes. Reported per size:
  ratio        median wall time per turn over the last 10% of turns / over the first 10%
               (target ≤ 1.2); cpu ratio: the same for the process's CPU time (less noisy on a
               busy machine)
  bytes/turn   bytes the process wrote (`wchar`), first 10% and last 10% of turns (flat: equal)
  blocked      share of wall time the event loop spent inside persistence calls (target < 5%)
  waited       share of wall time the task waited for its writes to land (the loop runs meanwhile)
  peak MB      peak resident memory of the process
The same file runs against older code (it only uses the `Task` constructor); persistence is timed
by wrapping whichever save methods that code has.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import inspect
import itertools
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from pycline import events
from pycline.app import wiring
from pycline.core.approval import AutoApprove
from pycline.core.task import Task, TaskSettings
from pycline.providers.base import ModelInfo, UsageChunk
from pycline.providers.scripted import ScriptedProvider, ScriptedReply
from pycline.storage import task_store
from pycline.storage.records import TaskRecord

CONTENT = "".join(f"line {i:04d} of a generated file, long enough to matter\n" for i in range(36))


def _write(i: int) -> str:
    path = f"src/file_{i % 40:02d}.txt"
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


class Host:
    def __init__(self) -> None:
        self.turn_marks: list[tuple[float, float, int]] = []

    def say(self, event: events.Event) -> None:
        if event.kind == "request_started":
            self.turn_marks.append((time.perf_counter(), time.process_time(), _wchar()))

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
    for name in ("history_changed", "ui_changed", "ui_edited", "record_changed", "context_changed"):
        timer.wrap(recorder, name)
    timer.wrap(recorder, "flush")
    timer.wrap(recorder, "close")


async def _run(turns: int, root: Path) -> dict[str, Any]:
    timer = Timer()
    _instrument(timer)
    home, workspace = root / "home", root / "ws"
    (workspace / "src").mkdir(parents=True)
    # Usage is given, so the scripted model does not estimate it from the whole history.
    usage = UsageChunk(input_tokens=1_000, output_tokens=100)
    texts = [_write(i) for i in range(turns - 1)] + [COMPLETE]
    provider = ScriptedProvider([ScriptedReply(t, usage=usage) for t in texts], chunk_size=64)
    provider.model_info = ModelInfo(id="scripted", context_window=100_000_000)
    tools = wiring.default_tools(browser=False)
    folder = task_store.TaskStore(home).create()
    record = TaskRecord(id=folder.id, ts=0.0, task="long", workspace=str(workspace))
    host = Host()
    kwargs: dict[str, Any] = {}
    if "recorder" in inspect.signature(Task.__init__).parameters:
        from pycline.storage.journal import TaskRecorder

        kwargs["recorder"] = TaskRecorder(folder, background=True)  # as a session runs tasks
    from pycline.workspace.paths import Workspace

    task = Task(
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
    started = time.perf_counter()
    outcome = await task.start("write many files")
    wall = time.perf_counter() - started
    assert outcome.completed, outcome
    marks = [*host.turn_marks, (time.perf_counter(), time.process_time(), _wchar())]
    durations = [b[0] - a[0] for a, b in itertools.pairwise(marks)]
    cpu = [b[1] - a[1] for a, b in itertools.pairwise(marks)]
    written = [b[2] - a[2] for a, b in itertools.pairwise(marks)]
    tenth = max(1, len(durations) // 10)
    # The first turn imports and lists the workspace; the last completes and folds the journal.
    body, cpu_body = durations[1:-1], cpu[1:-1]
    first, last = body[:tenth], body[-tenth:]
    return {
        "turns": turns,
        "wall_s": round(wall, 2),
        "first_ms": round(1000 * statistics.median(first), 2),
        "last_ms": round(1000 * statistics.median(last), 2),
        "ratio": round(statistics.median(last) / statistics.median(first), 2),
        "cpu_ratio": round(
            statistics.median(cpu_body[-tenth:]) / statistics.median(cpu_body[:tenth]), 2
        ),
        "bytes_first": int(sum(written[1 : tenth + 1]) / tenth),
        "bytes_last": int(sum(written[-tenth - 1 : -1]) / tenth),
        "blocked_pct": round(100 * timer.blocked / wall, 2),
        "waited_pct": round(100 * timer.waited / wall, 2),
        "peak_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }


def _child(turns: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        result = asyncio.run(_run(turns, Path(tmp)))
    print(json.dumps(result))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--turns", type=int, nargs="+", default=[50, 200, 800])
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        _child(args.child)
        return 0
    header = (
        "turns  wall s  first ms  last ms  ratio  cpu ratio  bytes/turn first→last  blocked"
        "  waited  peak MB"
    )
    print(header)
    for turns in args.turns:
        out = subprocess.run(
            [sys.executable, __file__, "--child", str(turns)],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        r: dict[str, Any] = json.loads(out.strip().splitlines()[-1])
        print(
            f"{r['turns']:>5}  {r['wall_s']:>6}  {r['first_ms']:>8}  {r['last_ms']:>7}  "
            f"{r['ratio']:>5}  {r.get('cpu_ratio', ''):>9}  "
            f"{r['bytes_first']:>10}→{r['bytes_last']:<10}  "
            f"{r['blocked_pct']:>6}%  {r['waited_pct']:>5}%  {r['peak_mb']:>7}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
