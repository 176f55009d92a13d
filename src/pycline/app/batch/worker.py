"""The per-task function both backends run: isolate, set up, run the agent, diff, check.

The agent runs as a `pycline run --json --yes` subprocess in its own process group, so a crash,
a timeout or a budget overrun ends that task alone, and its usage is read from the event stream
as it happens (to stop a task the moment it passes `max_cost`).
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from pycline.app.batch import isolation
from pycline.app.batch.model import BatchResult, BatchTask, CheckResult, Isolation, Status
from pycline.app.services.exit_codes import ExitCode
from pycline.storage.paths import pycline_home
from pycline.terminal.groups import signal_group

_TAIL = 4000
_GRACE = 10.0  # after an interrupt, how long the agent may take to save and exit
_MARK = "PYCLINE_BATCH_AGENT"  # carried by the agent and everything it starts
_SETUP_TIMEOUT = 600.0


@dataclass(frozen=True, slots=True)
class WorkerOptions:
    isolation: Isolation = "copy"
    timeout: float | None = None  # for the agent's run
    check_timeout: float = 600.0
    max_cost: float | None = None  # USD per task
    model_flags: tuple[str, ...] = ()  # --provider/--model/... handed to `pycline run`
    scratch: str = ""  # where isolated copies are made ("" : the system's temp folder)
    python: str = field(default_factory=lambda: sys.executable)


@dataclass(slots=True)
class AgentRun:
    exit_code: int | None = None
    timed_out: bool = False
    over_budget: bool = False
    cost: float = 0.0
    tokens_in: int = 0
    tokens_out: int = 0
    requests: int = 0
    stderr: str = ""
    task_id: str | None = None  # from the events' envelopes

    def take(self, line: bytes) -> None:
        """Count one line of `--json` output: each `usage` event is one model request."""
        try:
            event = json.loads(line)
        except (json.JSONDecodeError, UnicodeDecodeError):
            return
        if not isinstance(event, dict):
            return
        if self.task_id is None and isinstance(event.get("task_id"), str) and event["task_id"]:
            self.task_id = event["task_id"]
        if event.get("kind") != "usage":
            return
        self.requests += 1
        self.tokens_in += _int(event.get("input_tokens"))
        self.tokens_out += _int(event.get("output_tokens"))
        task_cost = event.get("task_cost")
        if isinstance(task_cost, int | float):
            self.cost = max(self.cost, float(task_cost))


def _int(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def run_one(task: BatchTask, options: WorkerOptions) -> BatchResult:
    """Synchronous entry point (a Ray task calls this in a worker process)."""
    return asyncio.run(run_one_async(task, options))


async def run_one_async(task: BatchTask, options: WorkerOptions) -> BatchResult:
    """Run one batch task from start to end; any failure becomes an `error` result."""
    started = time.monotonic()
    place: isolation.Place | None = None
    try:
        scratch = Path(options.scratch) if options.scratch else Path(_tempdir())
        place = await isolation.prepare(task, options.isolation, scratch)
        if task.setup:
            setup = await run_shell(task.setup, place.path, timeout=_SETUP_TIMEOUT)
            if not setup.passed:
                return _error(task, started, f"setup failed ({setup.exit_code}): {setup.output}")
        base = await isolation.snapshot(place)
        agent = await run_agent(task, place.path, options)
        diff = await isolation.patch(place, base)
        check = None
        if task.check and not (agent.timed_out or agent.over_budget):
            check = await run_shell(task.check, place.path, timeout=options.check_timeout)
        return BatchResult(
            id=task.id,
            status=_status(task, agent, check),
            completed=agent.exit_code == 0,
            check=check,
            cost=round(agent.cost, 6),
            tokens_in=agent.tokens_in,
            tokens_out=agent.tokens_out,
            requests=agent.requests,
            duration=round(time.monotonic() - started, 3),
            patch=diff,
            transcript=await asyncio.to_thread(_transcript, place.path, agent.task_id),
            error=None if agent.exit_code in _TASK_ENDS else _agent_error(agent),
        )
    except Exception as exc:  # one broken task must never stop the batch
        return _error(task, started, f"{type(exc).__name__}: {exc}")
    finally:
        if place is not None:
            await isolation.release(place)


# Exit codes of a run that reached its end (completed or not); any other is the agent's error.
_TASK_ENDS = (ExitCode.OK, ExitCode.FAILED, ExitCode.REFUSED, ExitCode.UNVERIFIED)


def _tempdir() -> str:
    return str(Path(tempfile.gettempdir()) / "pycline-batch")


def _status(task: BatchTask, agent: AgentRun, check: CheckResult | None) -> Status:
    if agent.timed_out:
        return "timeout"
    if agent.over_budget:
        return "over_budget"
    if task.check:
        return "success" if check is not None and check.passed else "failure"
    if agent.exit_code == ExitCode.UNVERIFIED:
        return "unverified"
    return "success" if agent.exit_code == 0 else "incomplete"


def _agent_error(agent: AgentRun) -> str | None:
    if agent.timed_out or agent.over_budget:
        return None
    return f"pycline exited with {agent.exit_code}: {agent.stderr[-_TAIL:]}".strip()


def _error(task: BatchTask, started: float, message: str) -> BatchResult:
    return BatchResult.failed(task.id, message[-_TAIL:], round(time.monotonic() - started, 3))


def agent_command(task: BatchTask, workspace: Path, options: WorkerOptions) -> list[str]:
    cmd = [options.python, "-m", "pycline", "run", "--json", "--yes"]
    cmd += ["--cwd", str(workspace), *options.model_flags]
    if task.script is not None:
        cmd += ["--provider", "scripted", "--script", task.script]
    if task.verify:
        cmd += ["--verify", task.verify]
        if task.max_verify is not None:
            cmd += ["--max-verify", str(task.max_verify)]
    return [*cmd, "--", task.task]


async def run_agent(task: BatchTask, workspace: Path, options: WorkerOptions) -> AgentRun:
    mark = uuid.uuid4().hex
    try:
        return await _run_agent(task, workspace, options, mark)
    finally:
        # Commands the agent started in their own process groups, which a hard kill of the
        # agent would orphan, are found by the mark they inherited.
        await asyncio.to_thread(_kill_marked, mark)


def _kill_marked(mark: str) -> None:
    needle = f"{_MARK}={mark}".encode()
    proc = Path("/proc")
    if not proc.is_dir():
        return
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if needle in (entry / "environ").read_bytes().split(b"\0"):
                os.kill(int(entry.name), signal.SIGKILL)
        except (OSError, ProcessLookupError):
            continue  # gone already, or not ours to read


async def _run_agent(
    task: BatchTask, workspace: Path, options: WorkerOptions, mark: str
) -> AgentRun:
    run = AgentRun()
    proc = await asyncio.create_subprocess_exec(
        *agent_command(task, workspace, options),
        cwd=workspace,
        env={**os.environ, _MARK: mark},
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        start_new_session=True,
        limit=16 * 1024 * 1024,
    )
    over_budget = asyncio.Event()

    async def read_stdout() -> None:
        assert proc.stdout is not None
        async for line in proc.stdout:
            run.take(line)
            if options.max_cost is not None and run.cost > options.max_cost:
                over_budget.set()

    async def read_stderr() -> None:
        assert proc.stderr is not None
        data = await proc.stderr.read()
        run.stderr = data.decode(errors="replace")[-_TAIL:]

    async def finish() -> None:
        await asyncio.gather(read_stdout(), read_stderr())
        await proc.wait()

    done = asyncio.ensure_future(finish())
    budget = asyncio.ensure_future(over_budget.wait())
    try:
        await asyncio.wait({done, budget}, timeout=options.timeout, return_when="FIRST_COMPLETED")
        if not done.done():
            run.over_budget = budget.done()
            run.timed_out = not run.over_budget
            await _interrupt(proc)
            await done
    finally:
        budget.cancel()
        if not done.done():  # we are being cancelled: stop the agent, then let go
            await asyncio.shield(_interrupt(proc))
            done.cancel()
    run.exit_code = proc.returncode
    return run


async def _interrupt(proc: asyncio.subprocess.Process) -> None:
    """Ctrl-C for the agent (it saves its task and stops its commands), then a hard kill."""
    for sig, wait in ((signal.SIGINT, _GRACE), (signal.SIGKILL, None)):
        signal_group(proc.pid, sig)
        try:
            await asyncio.wait_for(proc.wait(), wait)
            return
        except TimeoutError:
            continue


async def run_shell(command: str, cwd: Path, *, timeout: float) -> CheckResult:
    started = time.monotonic()
    proc = await asyncio.create_subprocess_shell(
        command,
        cwd=cwd,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        out, _ = await asyncio.wait_for(proc.communicate(), timeout)
    except (TimeoutError, asyncio.CancelledError) as exc:
        signal_group(proc.pid, signal.SIGKILL)
        await asyncio.shield(proc.wait())
        if isinstance(exc, asyncio.CancelledError):
            raise
        return CheckResult(None, False, f"timed out after {timeout:g}s", _since(started))
    code = proc.returncode
    text = out.decode(errors="replace")[-_TAIL:]
    return CheckResult(code, code == 0, text, _since(started))


def _since(started: float) -> float:
    return round(time.monotonic() - started, 3)


def _transcript(workspace: Path, task_id: str | None) -> str | None:
    """The saved task's folder: named by the events, else the latest task in the workspace."""
    from pycline.storage.task_store import TaskStore

    store = TaskStore(pycline_home())
    if task_id is None or "/" in task_id or not (store.tasks_dir / task_id).is_dir():
        task_id = store.latest(str(workspace.resolve()))
    return str(store.tasks_dir / task_id) if task_id else None
