"""`pycline batch tasks.jsonl`: many headless tasks, each isolated, on local workers or Ray.

The work is done by `pycline.app.batch`; this module parses flags, draws progress and prints the
summary.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from pycline.app.batch.model import BatchResult, load_tasks
from pycline.app.batch.runner import BatchSummary, plan, run_batch, summarize
from pycline.app.batch.worker import WorkerOptions
from pycline.app.services.exit_codes import ExitCode
from pycline.errors import PyclineError

_MODEL_FLAGS = ("provider", "model", "base_url", "script", "profile")


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="pycline batch",
        description="Run every task of a JSON Lines file headless, each in an isolated copy of "
        "its repository, and write one result line per task. Input lines: "
        '{"id", "repo" (path or git URL) | "workspace" (used as is), "task", "setup"?, "check"?}. '
        "Model keys come from the environment or `pycline auth`. Exits 1 when none of the "
        "tasks it ran succeeded.",
    )
    p.add_argument("tasks", type=Path, help="the tasks file (JSON Lines)")
    p.add_argument("--out", type=Path, required=True, help="the results file (JSON Lines)")
    p.add_argument("--workers", type=int, default=4, help="tasks running at once (default 4)")
    p.add_argument("--backend", choices=("local", "ray"), default="local")
    p.add_argument(
        "--ray-address",
        help="an existing Ray cluster (e.g. ray://head:10001 or auto); default: a private "
        "cluster on this machine. Every node needs pycline installed and the model's keys.",
    )
    p.add_argument("--isolation", choices=("copy", "worktree"), default="copy")
    p.add_argument("--max-cost-per-task", type=float, metavar="USD")
    p.add_argument("--timeout", type=float, metavar="S", help="seconds per task for the agent")
    p.add_argument("--check-timeout", type=float, default=600.0, metavar="S")
    p.add_argument("--resume", action="store_true", help="skip ids already in --out")
    p.add_argument("--scratch", type=Path, help="where isolated copies are made")
    p.add_argument("--provider", help="the model provider for every task (as `pycline run`)")
    p.add_argument("--model", help="model id")
    p.add_argument("--base-url", help="API base URL")
    p.add_argument("--script", help="scripted provider: JSON file of replies")
    p.add_argument("--profile", help="a model profile from the settings")
    return p


def model_flags(ns: argparse.Namespace) -> tuple[str, ...]:
    flags: list[str] = []
    for name in _MODEL_FLAGS:
        value = getattr(ns, name)
        if value:
            if name == "script":
                value = str(Path(value).expanduser().resolve())
            flags += [f"--{name.replace('_', '-')}", value]
    return tuple(flags)


class Progress:
    """A one-line bar on a terminal; one line per finished task otherwise (logs, CI)."""

    def __init__(self, total: int, out: TextIO = sys.stderr) -> None:
        self.total = total
        self.done = 0
        self.ok = 0
        self.cost = 0.0
        self.started = time.monotonic()
        self.out = out
        self.tty = out.isatty()

    def __call__(self, result: BatchResult) -> None:
        self.done += 1
        self.ok += result.status == "success"
        self.cost += result.cost
        if self.tty:
            width = 30
            filled = int(width * self.done / max(self.total, 1))
            bar = "#" * filled + "." * (width - filled)
            self.out.write(
                f"\r[{bar}] {self.done}/{self.total} · {self.ok} ok · ${self.cost:.4f} "
                f"· {self.rate():.1f}/min"
            )
            if self.done == self.total:
                self.out.write("\n")
        else:
            self.out.write(
                f"[{self.done}/{self.total}] {result.id}: {result.status} "
                f"(${result.cost:.4f}, {result.duration:.1f}s)\n"
            )
        self.out.flush()

    def rate(self) -> float:
        elapsed = time.monotonic() - self.started
        return self.done / elapsed * 60 if elapsed > 0 else 0.0


def render_summary(results: Sequence[BatchResult], summary: BatchSummary) -> None:
    print(f"{'id':<28} {'status':<12} {'check':<6} {'cost':>9} {'tokens':>9} {'time':>7}")
    for r in results:
        check = "-" if r.check is None else ("pass" if r.check.passed else "FAIL")
        tokens = r.tokens_in + r.tokens_out
        print(
            f"{r.id[:28]:<28} {r.status:<12} {check:<6} ${r.cost:>8.4f} {tokens:>9} "
            f"{r.duration:>6.1f}s"
        )
    statuses = ", ".join(f"{n} {s}" for s, n in summary.statuses.items())
    print(
        f"\n{summary.total} tasks: {statuses}\n"
        f"success rate {summary.success_rate:.0%} · cost ${summary.cost:.4f} · tokens "
        f"{summary.tokens_in} in / {summary.tokens_out} out · {summary.requests} requests\n"
        f"time {summary.wall_seconds:.1f}s wall, {summary.task_seconds:.1f}s in tasks · "
        f"{summary.tasks_per_minute:.1f} tasks/min"
    )


def run_batch_command(argv: Sequence[str]) -> int:
    ns = build_parser().parse_args(list(argv))
    try:
        tasks = load_tasks(ns.tasks)
        todo = plan(tasks, ns.out, resume=ns.resume)
    except PyclineError as exc:
        print(f"pycline: {exc}", file=sys.stderr)
        return ExitCode.USAGE
    if todo.skipped:
        print(f"pycline: {len(todo.skipped)} task(s) already done, skipped", file=sys.stderr)
    options = WorkerOptions(
        isolation=ns.isolation,
        timeout=ns.timeout,
        check_timeout=ns.check_timeout,
        max_cost=ns.max_cost_per_task,
        model_flags=model_flags(ns),
        scratch=str(ns.scratch.resolve()) if ns.scratch else "",
    )
    started = time.monotonic()
    try:
        results = run_batch(
            todo.tasks,
            ns.out,
            options,
            workers=ns.workers,
            backend=ns.backend,
            ray_address=ns.ray_address,
            on_result=Progress(len(todo.tasks)),
        )
    except KeyboardInterrupt:
        print(
            f"\npycline: stopped; finished results are in {ns.out} (continue with --resume)",
            file=sys.stderr,
        )
        return ExitCode.INTERRUPTED
    except PyclineError as exc:
        print(f"pycline: {exc}", file=sys.stderr)
        return ExitCode.USAGE
    render_summary(results, summarize(results, time.monotonic() - started))
    failed = [r for r in results if r.status != "success"]
    if failed and len(failed) == len(results):
        # Every task failing usually means the set-up is wrong (model, key, repositories).
        print(f"pycline: no task succeeded; see {ns.out}", file=sys.stderr)
    elif failed:
        print(
            f"pycline: {len(failed)} of {len(results)} tasks did not succeed; see {ns.out}",
            file=sys.stderr,
        )
    return ExitCode.FAILED if failed else ExitCode.OK
