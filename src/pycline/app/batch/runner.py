"""Run a batch: pick the backend, skip finished ids, write each result as it arrives, summarise.

Both backends run the same per-task function (`worker.run_one_async` / `worker.run_one`); the local
backend as asyncio tasks in this process, the Ray backend as Ray tasks on a cluster (a private one
started on this machine, or an existing one at `--ray-address`).
"""

from __future__ import annotations

import asyncio
import os
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pycline.app.batch.model import BatchResult, BatchTask, append_result, finished_ids
from pycline.app.batch.worker import WorkerOptions, run_one, run_one_async
from pycline.errors import ConfigError

Backend = Literal["local", "ray"]
OnResult = Callable[[BatchResult], None]
# Ray's smallest object store; results are small JSON-like objects.
_OBJECT_STORE_BYTES = 80 * 1024 * 1024
_CANCEL_GRACE = 15.0


@dataclass(frozen=True, slots=True)
class BatchPlan:
    tasks: tuple[BatchTask, ...]  # what will run
    skipped: tuple[str, ...]  # ids that already have a result (--resume)


@dataclass(frozen=True, slots=True)
class BatchSummary:
    total: int
    statuses: dict[str, int]
    success_rate: float
    cost: float
    tokens_in: int
    tokens_out: int
    requests: int
    task_seconds: float  # the sum of the tasks' own durations
    wall_seconds: float
    tasks_per_minute: float


def plan(tasks: Sequence[BatchTask], out: Path, *, resume: bool) -> BatchPlan:
    if not resume and out.exists() and out.stat().st_size > 0:
        raise ConfigError(f"{out} already has results; pass --resume to continue it")
    done = finished_ids(out) if resume else set()
    return BatchPlan(
        tuple(t for t in tasks if t.id not in done),
        tuple(t.id for t in tasks if t.id in done),
    )


def summarize(results: Sequence[BatchResult], wall_seconds: float) -> BatchSummary:
    statuses = Counter(r.status for r in results)
    total = len(results)
    return BatchSummary(
        total=total,
        statuses=dict(sorted(statuses.items())),
        success_rate=statuses["success"] / total if total else 0.0,
        cost=round(sum(r.cost for r in results), 6),
        tokens_in=sum(r.tokens_in for r in results),
        tokens_out=sum(r.tokens_out for r in results),
        requests=sum(r.requests for r in results),
        task_seconds=round(sum(r.duration for r in results), 3),
        wall_seconds=round(wall_seconds, 3),
        tasks_per_minute=round(total / wall_seconds * 60, 2) if wall_seconds > 0 else 0.0,
    )


def run_batch(
    tasks: Sequence[BatchTask],
    out: Path,
    options: WorkerOptions,
    *,
    workers: int,
    backend: Backend = "local",
    ray_address: str | None = None,
    on_result: OnResult | None = None,
) -> list[BatchResult]:
    """Run `tasks`, appending each result line to `out` as it completes; results in input order.

    Ctrl-C (KeyboardInterrupt) stops the running agents cleanly and propagates; the results
    written so far stay, so `--resume` continues where it stopped.
    """
    if workers < 1:
        raise ConfigError("--workers must be at least 1")

    def record(result: BatchResult) -> None:
        append_result(out, result)
        if on_result is not None:
            on_result(result)

    if backend == "local":
        results = asyncio.run(_run_local(tasks, options, workers, record))
    else:
        results = _run_ray(tasks, options, workers, ray_address, record)
    order = {t.id: n for n, t in enumerate(tasks)}
    return sorted(results, key=lambda r: order[r.id])


async def _run_local(
    tasks: Sequence[BatchTask], options: WorkerOptions, workers: int, record: OnResult
) -> list[BatchResult]:
    slots = asyncio.Semaphore(workers)

    async def one(task: BatchTask) -> BatchResult:
        async with slots:
            result = await run_one_async(task, options)
        record(result)
        return result

    return list(await asyncio.gather(*(one(t) for t in tasks)))


def _run_ray(
    tasks: Sequence[BatchTask],
    options: WorkerOptions,
    workers: int,
    address: str | None,
    record: OnResult,
) -> list[BatchResult]:
    try:
        import ray
    except ImportError as exc:
        raise ConfigError(
            "the Ray backend needs Ray: sh install.sh ray (in pycline's folder), or pip install 'pycline-agent[ray]'"
        ) from exc
    # A private cluster must not phone home or open a dashboard.
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    init: dict[str, Any] = {
        "include_dashboard": False,
        "log_to_driver": False,
        "configure_logging": False,
    }
    if address:
        ray.init(address=address, **init)
    else:
        # A private cluster on loopback: nothing listens on the machine's other interfaces.
        ray.init(
            address="local",
            _node_ip_address="127.0.0.1",
            num_cpus=workers,
            object_store_memory=_OBJECT_STORE_BYTES,
            **init,
        )
    try:
        remote = ray.remote(num_cpus=1, max_retries=0)(run_one)
        queue = list(reversed(tasks))
        running: dict[Any, BatchTask] = {}
        results: list[BatchResult] = []
        try:
            while queue or running:
                while queue and len(running) < workers:
                    task = queue.pop()
                    running[remote.remote(task, options)] = task
                ready, _ = ray.wait(list(running), num_returns=1)
                for ref in ready:
                    task = running.pop(ref)
                    result = _ray_result(ray, ref, task)
                    record(result)
                    results.append(result)
        except KeyboardInterrupt:
            # The worker's asyncio.run turns the interrupt into cancellation: agents are stopped.
            for ref in running:
                ray.cancel(ref)
            ray.wait(list(running), num_returns=len(running), timeout=_CANCEL_GRACE)
            raise
        return results
    finally:
        ray.shutdown()


def _ray_result(ray: Any, ref: Any, task: BatchTask) -> BatchResult:
    try:
        result = ray.get(ref)
    except Exception as exc:  # a worker that died takes only its own task down
        return BatchResult.failed(task.id, f"Ray: {type(exc).__name__}: {str(exc)[-2000:]}")
    assert isinstance(result, BatchResult)
    return result
