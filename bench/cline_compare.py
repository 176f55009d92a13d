"""The real Cline CLI (npm `cline`) against pycline on the same scripted tasks: what each costs.

Run: .venv/bin/python bench/cline_compare.py [--turns 4 50 200 800] [--shapes reread notes fresh]

Both agents run as their own command-line programs against one loopback fake OpenAI server
(`gpt-4o`, 128k window) that plays a task of `cline_task.py` (three shapes: much to de-duplicate,
little, nothing): each reply is the next step as a native tool call under the tool names the agent
offers (pycline also in its XML format, the calls then written in the reply text). Every request
either agent sends is counted, Cline's compaction summaries included, by
`cline_task.request_pieces` at 4 characters per token; the fake reports that same figure as the
prompt's usage, so both agents budget on the same count. Per run:

- input: raw tokens; priced with the prefix cache (`cache_price`: the longest prefix shared with
  an earlier request, in 128-token blocks from 1,024 tokens, at 0.1; the rest at 1.0 for OpenAI,
  1.25 for Anthropic), with the cached share; the largest request.
- wall time of the agent's process; per-turn time (from the end of a reply to the next request)
  by tenth of the run, and the last tenth over the first.
- bytes written to disk by the agent and its children, as the disk counts them (the kernel's
  `write_bytes`, nothing subtracted) and files left in its data folder (for pycline,
  PYCLINE_HOME with the checkpoint repository; for Cline, its data folder and home).
- for pycline, the time from each edit's reply (the edit is auto-approved at once) to the next
  request: what the language server's check adds to an edit, first edit apart.

Cline: `cline@3.0.65`, installed on first use into bench/.cline (git-ignored) with
`npm install --prefix`; its default configuration (agentic compaction, its default tools), run
with `--json` and `--data-dir` in a temporary HOME, with the local session backend (no hub
daemon) and telemetry off. Where bubblewrap works the whole comparison runs in a network
namespace that has only loopback, so neither agent can reach anything but the fake.
pycline: `pycline run -y` with its defaults as a user gets them: sandbox where bubblewrap works,
language servers on, checkpoints on.
`--repeat N` runs each size N times, the agents interleaved (Cline, pycline, pycline, Cline, …),
so a change in the machine's load falls on all of them alike; each repetition is its own cell in
the targets.
A run counts only if the agent finished and every write and edit landed in the workspace.
The targets the report checks are printed at its end.

What Cline 3.x sends (seen with --dump): a 4.3 KB system prompt and 25 tool definitions (17.8 KB,
its team tools included), no environment details; an older read of a file it reads again becomes
"[outdated - see the latest file content]"; apply_patch answers in one line; near its budget it
asks the model for a summary (the fake answers with a short one) and keeps the recent turns.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
sys.path.insert(0, str(REPO))  # for tests.fakes

from tests.fakes.openai_server import OpenAIReply, OpenAIUsage  # noqa: E402
from tests.fakes.openai_server import _stream_plan as openai_stream  # noqa: E402
from tests.fakes.server import FakeHTTPServer, FakeToolCall, Planned, RecordedRequest  # noqa: E402

import cline_task  # noqa: E402
from cache_price import PrefixCache  # noqa: E402
from cline_task import Flavour, Shape, Step  # noqa: E402

CLINE_VERSION = "3.0.65"
# `pycline config set` pairs for every pycline run (--pycline-config), e.g. to try a setting.
EXTRA_CONFIG: list[tuple[str, str]] = []
CLINE_PREFIX = BENCH / ".cline"
CHARS_PER_TOKEN = 4
MODEL = "gpt-4o"
SUMMARY = (
    "## Summary of the work so far\n"
    "The user asked to work through the project step by step, as the task says, and to confirm "
    "each change. The files have been read, searched and written in turn; every check so far "
    "reported what was expected. Next: continue with the next item in the same way.\n"
)


@dataclass
class Recorded:
    kind: str  # "step" (a task turn) or "summary" (a compaction request)
    chars: int
    cached: int  # tokens the prefix cache would serve
    arrived: float
    cpu: float = 0.0  # the agent's CPU seconds so far (its reaped children's included)


@dataclass
class Run:
    flavour: Flavour
    shape: Shape
    turns: int
    requests: list[Recorded] = field(default_factory=list)
    sent: list[float] = field(default_factory=list)  # when each reply's last byte went out
    wall: float = 0.0
    written: int = 0  # bytes written to disk, as the disk counts them
    dirtied: int = 0  # the same figure (kept for files saved by earlier versions)
    edits: list[int] = field(default_factory=list)  # indices of the steps that edit a file
    started: float = 0.0  # when the agent's process was started (perf_counter)
    files: int = 0  # files left in the data folder
    problem: str | None = None
    pid: int | None = None  # the agent's process while it runs

    @property
    def tokens(self) -> int:
        return sum(r.chars for r in self.requests) // CHARS_PER_TOKEN

    @property
    def cached(self) -> int:
        return sum(r.cached for r in self.requests)

    def priced(self, vendor: str) -> float:
        from cache_price import CACHED, UNCACHED

        return sum(
            CACHED * r.cached + UNCACHED[vendor] * (r.chars // CHARS_PER_TOKEN - r.cached)
            for r in self.requests
        )

    @property
    def largest(self) -> int:
        return max((r.chars for r in self.requests), default=0)

    def gaps(self) -> list[float]:
        """Seconds from the end of each reply to the next request."""
        arrived = [r.arrived for r in self.requests]
        return [b - a for a, b in zip(self.sent, arrived[1:], strict=False)]

    def edit_waits(self) -> list[float]:
        """Seconds from each edit's reply to the next request, in order."""
        gaps = self.gaps()
        return [gaps[i] for i in self.edits if i < len(gaps)]

    def tenths(self) -> list[float]:
        """Median per-turn time of each tenth of the run, in ms (fewer parts for short runs)."""
        gaps = self.gaps()
        parts = min(10, len(gaps))
        if not parts:
            return []
        size = len(gaps) / parts
        return [
            1000 * statistics.median(gaps[round(k * size) : round((k + 1) * size)])
            for k in range(parts)
        ]

    def per_turn_ratio(self) -> float | None:
        tenths = self.tenths()
        return tenths[-1] / tenths[0] if len(tenths) >= 2 and tenths[0] > 0 else None

    def cpu_tenths(self) -> list[float]:
        """Mean CPU time per turn (request to request) of each tenth of the run, in ms: unlike
        wall time, hardly changed by other processes' load on a shared machine."""
        cpu = [r.cpu for r in self.requests]
        turns = [b - a for a, b in itertools.pairwise(cpu)]
        parts = min(10, len(turns))
        if not parts or not any(turns):
            return []
        size = len(turns) / parts
        return [
            1000 * statistics.mean(turns[round(k * size) : round((k + 1) * size)])
            for k in range(parts)
        ]

    def cpu_ratio(self) -> float | None:
        tenths = self.cpu_tenths()
        return tenths[-1] / tenths[0] if len(tenths) >= 2 and tenths[0] > 0 else None


class ScriptedModel:
    """Answers each request with the next step, as the agent's own tool call."""

    def __init__(self, run: Run, root: Path, dump: Path | None = None) -> None:
        self.run = run
        self.dump = dump
        self.root = root
        self.steps = cline_task.steps(run.turns, run.shape)
        run.edits = [i for i, step in enumerate(self.steps) if step.kind == "edit"]
        self.next = 0
        self.lock = threading.Lock()
        self.prices = PrefixCache()
        self.server = FakeHTTPServer(self.respond)
        self.server.on_sent = lambda: run.sent.append(time.perf_counter())

    def respond(self, request: RecordedRequest) -> Planned:
        arrived = time.perf_counter()
        path = request.path.split("?", 1)[0]
        if request.method == "GET" and path.endswith("/models"):
            model = {"id": MODEL, "object": "model", "created": 0, "owned_by": "bench"}
            return Planned(json_body={"object": "list", "data": [model]})
        body = request.body if isinstance(request.body, dict) else {}
        if not path.endswith("/chat/completions") or not body:
            return Planned(status=404, json_body={"error": {"message": f"no route {path}"}})
        pieces = cline_task.request_pieces(body)
        chars = sum(len(text) for _, text in pieces)
        with self.lock:
            summary = self.run.flavour == "cline" and not body.get("tools")
            if summary:
                reply = OpenAIReply(text=SUMMARY)
            elif self.next >= len(self.steps):
                self.run.problem = "the agent asked for more turns than the task has"
                return Planned(status=500, json_body={"error": {"message": "script used up"}})
            else:
                reply = self._reply(self.steps[self.next], self.next)
                self.next += 1
            priced = self.prices.price(pieces)
            kind = "summary" if summary else "step"
            self.run.requests.append(
                Recorded(kind, chars, priced.cached, arrived, _cpu(self.run.pid))
            )
            if self.dump is not None:
                name = (
                    f"{self.run.flavour}-{self.run.shape}-{self.run.turns}-"
                    f"{len(self.run.requests):04d}.json"
                )
                (self.dump / name).write_text(json.dumps(body, indent=1), encoding="utf-8")
        usage = OpenAIUsage(
            prompt_tokens=max(1, chars // CHARS_PER_TOKEN),
            completion_tokens=max(1, (len(reply.text) + 40) // CHARS_PER_TOKEN),
            cached_tokens=priced.cached,
        )
        reply = OpenAIReply(
            text=reply.text, tool_calls=reply.tool_calls, usage=usage, delta_size=256
        )
        return openai_stream(reply, MODEL, usage if body.get("stream_options") else None)

    def _reply(self, step: Step, index: int) -> OpenAIReply:
        call: tuple[str, dict[str, Any]] | None
        match self.run.flavour:
            case "cline":
                call = cline_task.cline_call(step, self.root)
            case "pycline-native":
                call = cline_task.pycline_call(step, native=True)
            case "pycline-xml":
                name, params = cline_task.pycline_call(step, native=False)
                return OpenAIReply(text=f"{step.prose}\n{cline_task.as_xml(name, params)}")
        if call is None:
            return OpenAIReply(text=step.prose)
        name, arguments = call
        return OpenAIReply(
            text=step.prose, tool_calls=(FakeToolCall(name, arguments, id=f"call_{index}"),)
        )


# --- the agents -----------------------------------------------------------------------------


def cline_binary() -> Path:
    """The pinned Cline CLI, installed into bench/.cline on first use."""
    binary = CLINE_PREFIX / "node_modules" / ".bin" / "cline"
    package = CLINE_PREFIX / "node_modules" / "cline" / "package.json"
    if package.exists() and json.loads(package.read_text())["version"] == CLINE_VERSION:
        return binary
    npm = shutil.which("npm")
    if npm is None:
        raise SystemExit("npm is needed to install the Cline CLI")
    print(f"installing cline@{CLINE_VERSION} into {CLINE_PREFIX} ...", file=sys.stderr)
    subprocess.run(
        [npm, "install", "--prefix", str(CLINE_PREFIX), "--no-audit", "--no-fund",
         "--loglevel=error", f"cline@{CLINE_VERSION}"],
        check=True,
    )  # fmt: skip
    return binary


def _cline_env(home: Path) -> dict[str, str]:
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "CLINE_DIR": str(home / ".cline"),
        "CLINE_SESSION_BACKEND_MODE": "local",  # no background hub daemon
        "DO_NOT_TRACK": "1",
        "DISABLE_TELEMETRY": "1",
        "OTEL_TELEMETRY_ENABLED": "0",
        "NO_COLOR": "1",
    }


def _io() -> dict[str, int]:
    """This process's I/O counters; children's are added when they are reaped."""
    out: dict[str, int] = {}
    for line in Path("/proc/self/io").read_text().splitlines():
        key, _, value = line.partition(":")
        out[key] = int(value)
    return out


def _cpu(pid: int | None) -> float:
    """CPU seconds of process `pid` and its reaped children (0 when unknown)."""
    if pid is None:
        return 0.0
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return 0.0
    # utime, stime, cutime, cstime: fields 14-17 of stat(5), after the name's ")".
    return sum(int(v) for v in fields[11:15]) / os.sysconf("SC_CLK_TCK")


def _timed(run: Run, command: list[str], **kwargs: Any) -> subprocess.CompletedProcess[str]:
    """Run the agent, charging its wall time and disk writes (its children's too) to `run`."""
    timeout = kwargs.pop("timeout", None)
    before, started = _io(), time.perf_counter()
    run.started = started
    with subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kwargs
    ) as agent:
        run.pid = agent.pid
        try:
            out, err = agent.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            agent.kill()
            out, err = agent.communicate()
            run.problem = f"timed out after {timeout} s"
        run.pid = None
    done = subprocess.CompletedProcess(command, agent.returncode, out, err)
    run.wall = time.perf_counter() - started
    after = _io()
    run.dirtied = after["write_bytes"] - before["write_bytes"]
    run.written = run.dirtied  # as the disk counts them: nothing subtracted
    return done


def _count_files(*folders: Path) -> int:
    return sum(len(files) for folder in folders for _, _, files in os.walk(folder))


def run_cline(run: Run, root: Path, tmp: Path, base_url: str, timeout: float) -> None:
    binary = str(cline_binary())
    home, data = tmp / "home", tmp / "cline-data"
    home.mkdir()
    env = _cline_env(home)
    auth = [binary, "auth", "-p", "openai-compatible", "-k", "sk-bench", "-m", MODEL,
            "-b", base_url, "--data-dir", str(data)]  # fmt: skip
    subprocess.run(auth, env=env, cwd=root, check=True, capture_output=True, timeout=60)
    task = cline_task.TASKS[run.shape]
    command = [binary, "--json", "--data-dir", str(data), "-c", str(root), task]
    done = _timed(run, command, env=env, cwd=root, timeout=timeout)
    run.files = _count_files(home, data)
    finish = None
    for line in done.stdout.splitlines():
        if line.startswith("{") and '"run_result"' in line:
            finish = json.loads(line).get("finishReason")
    if finish != "completed":
        run.problem = f"cline exited {done.returncode}, finish {finish}: {done.stderr[-500:]}"


def run_pycline(run: Run, root: Path, tmp: Path, base_url: str, timeout: float) -> None:
    home = tmp / "pycline-home"
    env = {**os.environ, "PYCLINE_HOME": str(home), "NO_COLOR": "1"}
    pycline = [sys.executable, "-m", "pycline"]
    fmt = "native" if run.flavour == "pycline-native" else "xml"
    for key, value in (("toolCallFormat", fmt), *EXTRA_CONFIG):
        subprocess.run([*pycline, "config", "set", key, value], env=env, check=True,
                       capture_output=True)  # fmt: skip
    command = [*pycline, "run", "--provider", "openai", "--model", MODEL, "--base-url", base_url,
               "--api-key", "sk-bench", "-y", "--cwd", str(root),
               cline_task.TASKS[run.shape]]  # fmt: skip
    done = _timed(run, command, env=env, timeout=timeout)
    run.files = _count_files(home)
    if done.returncode != 0:
        run.problem = f"pycline exited {done.returncode}: {done.stderr[-500:]}"


def measure(
    flavour: Flavour, shape: Shape, turns: int, timeout: float, dump: Path | None = None
) -> Run:
    run = Run(flavour, shape, turns)
    with tempfile.TemporaryDirectory(prefix="cline-compare-") as name:
        tmp = Path(name)
        root = tmp / "project"
        cline_task.make_project(root, shape, turns)
        model = ScriptedModel(run, root, dump)
        with model.server:
            base_url = f"{model.server.origin}/v1"
            if flavour == "cline":
                run_cline(run, root, tmp, base_url, timeout)
            else:
                run_pycline(run, root, tmp, base_url, timeout)
        if run.problem is None and model.next != len(model.steps):
            run.problem = f"stopped after {model.next} of {len(model.steps)} turns"
        if run.problem is None:
            run.problem = cline_task.verify(root, turns, shape)
    return run


# --- the report -----------------------------------------------------------------------------


def _x(value: float, base: float) -> str:
    return f"{value / base:5.2f}x" if base else "   -  "


def report(runs: dict[str, Run]) -> None:
    cline = runs["cline"]
    print(f"\n{cline.shape}, {cline.turns} turns", flush=True)
    print(
        "  agent           reqs  input tok  vs Cline  cached  OpenAI-priced  vs Cline  "
        "Anthropic  vs Cline  largest  wall s  vs Cline  turn ms 1st→last  ratio  "
        "written  vs Cline  files"
    )
    for name, run in runs.items():
        if not run.requests:
            continue
        share = 100 * run.cached / run.tokens if run.tokens else 0.0
        tenths = run.tenths()
        turn = f"{tenths[0]:6.1f}→{tenths[-1]:<6.1f}" if tenths else " " * 13
        ratio = run.per_turn_ratio()
        print(
            f"  {name:<15} {len(run.requests):>4} {run.tokens:>10,}  {_x(run.tokens, cline.tokens)}"
            f"  {share:5.1f}%  {run.priced('openai'):>13,.0f}  "
            f"{_x(run.priced('openai'), cline.priced('openai'))}  "
            f"{run.priced('anthropic'):>9,.0f}  "
            f"{_x(run.priced('anthropic'), cline.priced('anthropic'))}  "
            f"{run.largest:>7,}  {run.wall:>6.1f}  {_x(run.wall, cline.wall)}  {turn}  "
            f"{ratio if ratio is not None else 0:5.2f}  {run.written / 1e6:>6.1f}M  "
            f"{_x(run.written, cline.written)}  {run.files:>5}",
            flush=True,
        )
        summaries = sum(r.kind == "summary" for r in run.requests)
        extra = f"; {summaries} compaction requests" if summaries else ""
        print(f"    per-turn ms by tenth: {' '.join(f'{t:.1f}' for t in tenths)}{extra}")
        start_up = run.requests[0].arrived - run.started if run.started else 0.0
        last = run.started + run.wall - run.sent[-1] if run.sent and run.started else 0.0
        print(f"    start to first request {start_up:.2f} s; last reply to exit {last:.2f} s")
        if (waits := run.edit_waits()) and name != "cline":
            print(f"    edit → next request, s: {_distribution(waits)}")
        if cpu := run.cpu_tenths():
            ratio = run.cpu_ratio() or 0
            print(
                f"    per-turn CPU ms by tenth: {' '.join(f'{t:.1f}' for t in cpu)} ({ratio:.2f})"
            )
        if run.problem:
            print(f"    FAILED: {run.problem}", flush=True)


def _distribution(waits: list[float]) -> str:
    first, rest = waits[0], sorted(waits[1:])
    if not rest:
        return f"first {first:.2f} (the only edit)"
    p90 = rest[min(len(rest) - 1, int(0.9 * len(rest)))]
    return (
        f"first {first:.2f}; then n={len(rest)} min {rest[0]:.2f} median "
        f"{statistics.median(rest):.2f} p90 {p90:.2f} max {rest[-1]:.2f}"
    )


@dataclass(frozen=True)
class Target:
    what: str
    turns: tuple[int, ...]
    limit: float

    def value(self, run: Run, cline: Run) -> float | None:
        match self.what:
            case "OpenAI-priced input":
                return run.priced("openai") / cline.priced("openai")
            case "Anthropic-priced input":
                return run.priced("anthropic") / cline.priced("anthropic")
            case "raw input":
                return run.tokens / cline.tokens
            case "per-turn time, last/first tenth":
                return run.per_turn_ratio()
            case "per-turn CPU time, last/first tenth":
                return run.cpu_ratio()
            case "bytes written":
                return run.written / cline.written if cline.written else None
            case "wall time":
                return run.wall / cline.wall
            case "edit wait after the first edit, s (max)":
                waits = run.edit_waits()[1:]
                return max(waits) if waits else None
        raise AssertionError(self.what)


TARGETS = (
    Target("wall time", (4,), 0.5),
    Target("edit wait after the first edit, s (max)", (4, 50, 200, 800), 1.5),
    Target("raw input", (200,), 0.5),
    Target("OpenAI-priced input", (200,), 0.5),
    Target("Anthropic-priced input", (200,), 0.5),
    Target("raw input", (800,), 0.4),
    Target("OpenAI-priced input", (800,), 0.4),
    Target("Anthropic-priced input", (800,), 0.4),
    Target("bytes written", (4, 200, 800), 1.0),
    Target("per-turn CPU time, last/first tenth", (800,), 1.3),
    Target("per-turn time, last/first tenth", (800,), 1.5),
    Target("wall time", (200, 800), 0.5),
)


def check_targets(results: list[dict[str, Run]]) -> bool:
    """Print each target against the runs it applies to; True when all measured ones are met."""
    print("\ntargets (pycline vs Cline unless said otherwise):")
    met = True
    for target in TARGETS:
        cells = []
        for runs in results:
            cline = runs["cline"]
            if cline.turns not in target.turns:
                continue
            for name, run in runs.items():
                if name == "cline" or not run.requests:
                    continue
                base = run if target.what.startswith(("per-turn", "edit")) else cline
                if not base.requests:
                    continue
                value = target.value(run, cline)
                if value is None:
                    continue
                ok = value <= target.limit and run.problem is None
                met = met and ok
                cells.append(
                    f"{run.shape}/{run.turns}/{name[8:]} {value:.2f}{'' if ok else ' NOT MET'}"
                )
        if cells:
            print(f"  {target.what} <= {target.limit}: " + ", ".join(cells))
    return met


def _offline_prefix() -> list[str]:
    """bwrap with only a loopback network, when it works here; [] otherwise."""
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return []
    # Its own /proc, so the agents' pids read there are the ones this namespace sees.
    prefix = [bwrap, "--dev-bind", "/", "/", "--proc", "/proc", "--unshare-net", "--unshare-pid",
              "--die-with-parent", "--"]  # fmt: skip
    probe = subprocess.run([*prefix, "true"], capture_output=True)
    return prefix if probe.returncode == 0 else []


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, nargs="+", default=[4, 50, 200, 800])
    parser.add_argument("--shapes", nargs="+", default=list(cline_task.SHAPES),
                        choices=cline_task.SHAPES)  # fmt: skip
    parser.add_argument("--quick", action="store_true", help="4 and 50 turns only")
    parser.add_argument("--repeat", type=int, default=1,
                        help="runs of each size, the agents interleaved")  # fmt: skip
    parser.add_argument("--timeout", type=float, default=3600, help="seconds per agent run")
    parser.add_argument("--agents", nargs="+", default=["cline", "pycline-xml", "pycline-native"])
    parser.add_argument("--dump", type=Path, help="write every request body into this folder")
    parser.add_argument("--save", type=Path, help="write every run's figures here as JSON")
    parser.add_argument("--baseline", type=Path,
                        help="Cline's runs from an earlier --save, instead of running Cline")  # fmt: skip
    parser.add_argument("--pycline-config", nargs="+", default=[], metavar="KEY=VALUE",
                        help="settings for the pycline runs (pycline config set)")  # fmt: skip
    parser.add_argument("--inside", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if not args.inside:
        if "cline" in args.agents:
            cline_binary()  # installs before the network goes away
        prefix = _offline_prefix()
        if prefix:
            forwarded = sys.argv[1:] if argv is None else argv
            inside = [*prefix, sys.executable, __file__, "--inside", *forwarded]
            return subprocess.run(inside).returncode
        print("bubblewrap unavailable: running without a loopback-only network", file=sys.stderr)
    EXTRA_CONFIG.extend(tuple(pair.split("=", 1)) for pair in args.pycline_config)  # type: ignore[misc]
    turns = [4, 50] if args.quick else args.turns
    if args.dump is not None:
        args.dump.mkdir(parents=True, exist_ok=True)
    print(f"tokens counted at {CHARS_PER_TOKEN} characters per token (cline_task.request_pieces)")
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    failed = False
    results: list[dict[str, Run]] = []
    baseline = _load(args.baseline) if args.baseline is not None else {}
    for shape in args.shapes:
        for n in turns:
            for k in range(args.repeat):
                # Interleaved, and in turn first: neither agent always runs on a warmer machine.
                order = args.agents if k % 2 == 0 else args.agents[::-1]
                runs = {name: measure(name, shape, n, args.timeout, args.dump) for name in order}
                runs = {name: runs[name] for name in args.agents}
                if "cline" not in runs:
                    runs = {"cline": baseline.get((shape, n), Run("cline", shape, n)), **runs}
                report(runs)
                results.append(runs)
                failed = failed or any(r.problem for r in runs.values())
                if args.save is not None:
                    _save(args.save, results)
    if any(r["cline"].requests for r in results):
        check_targets(results)
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 1 if failed else 0


def _load(path: Path) -> dict[tuple[str, int], Run]:
    """Cline's runs in a file written by --save, by shape and turns."""
    out: dict[tuple[str, int], Run] = {}
    for runs in json.loads(path.read_text(encoding="utf-8")):
        data = runs.get("cline")
        if not data or not data["requests"]:
            continue
        run = Run(**{**data, "requests": [Recorded(**r) for r in data["requests"]]})
        out[(run.shape, run.turns)] = run
    return out


def _save(path: Path, results: list[dict[str, Run]]) -> None:
    data = [
        {name: {**asdict(run), "requests": [asdict(r) for r in run.requests]}
         for name, run in runs.items()}
        for runs in results
    ]  # fmt: skip
    path.write_text(json.dumps(data), encoding="utf-8")


if __name__ == "__main__":
    raise SystemExit(main())
