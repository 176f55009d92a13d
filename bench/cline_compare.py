"""Input tokens of the same scripted task: the real Cline CLI (npm `cline`) against pycline.

Run: .venv/bin/python bench/cline_compare.py [--turns 4 200 800] [--quick] [--per-turn]

Both agents run as their own command-line programs against one loopback fake OpenAI server
(`gpt-4o`, 128k window) that plays the task of `cline_task.py`: each reply is the next step as a
native tool call under the tool names the agent offers (pycline also in its XML format, the calls
then written in the reply text). Every request either agent sends is counted, Cline's compaction
summaries included, by `cline_task.request_chars` at 4 characters per token; the fake reports
that same figure as the prompt's usage, so both agents budget on the same count.

Cline: `cline@3.0.65`, installed on first use into bench/.cline (git-ignored) with
`npm install --prefix`; its default configuration (agentic compaction, its default tools), run
with `--json` and `--data-dir` in a temporary HOME, with the local session backend (no hub
daemon) and telemetry off. Where bubblewrap works the whole comparison runs in a network
namespace that has only loopback, so neither agent can reach anything but the fake.
pycline: `pycline run -y --sandbox off` with checkpoints off (they add nothing to requests).
A run counts only if the agent finished and every edit landed in the workspace.

What Cline 3.x sends (seen with --dump): a 4.3 KB system prompt and 25 tool definitions (17.8 KB,
its team tools included), no environment details; an older read of a file it reads again becomes
"[outdated - see the latest file content]"; apply_patch answers in one line; near its budget it
asks the model for a summary (the fake answers with a short one) and keeps the recent turns.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
sys.path.insert(0, str(REPO))  # for tests.fakes

from tests.fakes.openai_server import OpenAIReply, OpenAIUsage  # noqa: E402
from tests.fakes.openai_server import _stream_plan as openai_stream  # noqa: E402
from tests.fakes.server import FakeHTTPServer, FakeToolCall, Planned, RecordedRequest  # noqa: E402

import cline_task  # noqa: E402
from cline_task import Flavour, Step  # noqa: E402

CLINE_VERSION = "3.0.65"
CLINE_PREFIX = BENCH / ".cline"
CHARS_PER_TOKEN = 4
MODEL = "gpt-4o"
SUMMARY = (
    "## Summary of the work so far\n"
    "The user asked to bump the COUNTER of each module in src/ and to confirm each change "
    "with `python3 check.py`. The modules have been read, searched and edited in turn; "
    "check.py reported every counter as expected after each edit. The README lists the "
    "modules. Next: continue with the next module in the same way.\n"
)


@dataclass
class Recorded:
    kind: str  # "step" (a task turn) or "summary" (a compaction request)
    chars: int


@dataclass
class Run:
    flavour: Flavour
    turns: int
    requests: list[Recorded] = field(default_factory=list)
    problem: str | None = None

    @property
    def tokens(self) -> int:
        return sum(r.chars for r in self.requests) // CHARS_PER_TOKEN

    def per_turn(self) -> list[int]:
        return [r.chars // CHARS_PER_TOKEN for r in self.requests]


class ScriptedModel:
    """Answers each request with the next step, as the agent's own tool call."""

    def __init__(self, run: Run, root: Path, dump: Path | None = None) -> None:
        self.run = run
        self.dump = dump
        self.root = root
        self.steps = cline_task.steps(run.turns)
        self.next = 0
        self.lock = threading.Lock()
        self.server = FakeHTTPServer(self.respond)

    def respond(self, request: RecordedRequest) -> Planned:
        path = request.path.split("?", 1)[0]
        if request.method == "GET" and path.endswith("/models"):
            model = {"id": MODEL, "object": "model", "created": 0, "owned_by": "bench"}
            return Planned(json_body={"object": "list", "data": [model]})
        body = request.body if isinstance(request.body, dict) else {}
        if not path.endswith("/chat/completions") or not body:
            return Planned(status=404, json_body={"error": {"message": f"no route {path}"}})
        chars = cline_task.request_chars(body)
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
            self.run.requests.append(Recorded("summary" if summary else "step", chars))
            if self.dump is not None:
                name = f"{self.run.flavour}-{self.run.turns}-{len(self.run.requests):04d}.json"
                (self.dump / name).write_text(json.dumps(body, indent=1), encoding="utf-8")
        usage = OpenAIUsage(
            prompt_tokens=max(1, chars // CHARS_PER_TOKEN),
            completion_tokens=max(1, (len(reply.text) + 40) // CHARS_PER_TOKEN),
            cached_tokens=0,
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


def run_cline(run: Run, root: Path, tmp: Path, base_url: str, timeout: float) -> None:
    binary = str(cline_binary())
    home, data = tmp / "home", tmp / "cline-data"
    home.mkdir()
    env = _cline_env(home)
    auth = [binary, "auth", "-p", "openai-compatible", "-k", "sk-bench", "-m", MODEL,
            "-b", base_url, "--data-dir", str(data)]  # fmt: skip
    subprocess.run(auth, env=env, cwd=root, check=True, capture_output=True, timeout=60)
    command = [binary, "--json", "--data-dir", str(data), "-c", str(root), cline_task.TASK]
    done = subprocess.run(
        command, env=env, cwd=root, capture_output=True, text=True, timeout=timeout
    )
    finish = None
    for line in done.stdout.splitlines():
        if line.startswith("{") and '"run_result"' in line:
            finish = json.loads(line).get("finishReason")
    if finish != "completed":
        run.problem = f"cline exited {done.returncode}, finish {finish}: {done.stderr[-500:]}"


def run_pycline(run: Run, root: Path, tmp: Path, base_url: str, timeout: float) -> None:
    env = {**os.environ, "PYCLINE_HOME": str(tmp / "pycline-home"), "NO_COLOR": "1"}
    pycline = [sys.executable, "-m", "pycline.cli.main"]
    fmt = "native" if run.flavour == "pycline-native" else "xml"
    for key, value in (("toolCallFormat", fmt), ("enableCheckpoints", "false")):
        subprocess.run([*pycline, "config", "set", key, value], env=env, check=True,
                       capture_output=True)  # fmt: skip
    command = [*pycline, "run", "--provider", "openai", "--model", MODEL, "--base-url", base_url,
               "--api-key", "sk-bench", "-y", "--sandbox", "off", "--cwd", str(root),
               cline_task.TASK]  # fmt: skip
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=timeout)
    if done.returncode != 0:
        run.problem = f"pycline exited {done.returncode}: {done.stderr[-500:]}"


def measure(flavour: Flavour, turns: int, timeout: float, dump: Path | None = None) -> Run:
    run = Run(flavour, turns)
    with tempfile.TemporaryDirectory(prefix="cline-compare-") as name:
        tmp = Path(name)
        root = tmp / "project"
        cline_task.make_project(root)
        model = ScriptedModel(run, root, dump)
        with model.server:
            base_url = f"{model.server.origin}/v1"
            if flavour == "cline":
                run_cline(run, root, tmp, base_url, timeout)
            else:
                run_pycline(run, root, tmp, base_url, timeout)
        if run.problem is None and model.next != len(model.steps):
            run.problem = f"stopped after {model.next} of {len(model.steps)} turns"
        if run.problem is None and cline_task.counters_in(root) != cline_task.expected_counters(
            turns
        ):
            run.problem = "not every edit landed in the workspace"
    return run


# --- the command ----------------------------------------------------------------------------


def _offline_prefix() -> list[str]:
    """bwrap with only a loopback network, when it works here; [] otherwise."""
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return []
    prefix = [bwrap, "--dev-bind", "/", "/", "--unshare-net", "--unshare-pid",
              "--die-with-parent", "--"]  # fmt: skip
    probe = subprocess.run([*prefix, "true"], capture_output=True)
    return prefix if probe.returncode == 0 else []


def report(runs: dict[str, Run], per_turn: bool) -> None:
    cline = runs["cline"]
    print(f"\n{cline.turns} turns", flush=True)
    for name, run in runs.items():
        extra = ""
        summaries = sum(r.kind == "summary" for r in run.requests)
        if summaries:
            extra = f" ({summaries} compaction requests)"
        status = f"  FAILED: {run.problem}" if run.problem else ""
        ratio = f"{run.tokens / cline.tokens:5.2f}x" if cline.tokens else "  -  "
        print(
            f"  {name:>15}: {run.tokens:>11,} input tokens in {len(run.requests):>4} requests"
            f"  {ratio} Cline{extra}{status}",
            flush=True,
        )
        if per_turn:
            print("    " + " ".join(str(t) for t in run.per_turn()))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, nargs="+", default=[4, 200, 800])
    parser.add_argument("--quick", action="store_true", help="4 and 50 turns only")
    parser.add_argument("--per-turn", action="store_true", help="print every request's tokens")
    parser.add_argument("--timeout", type=float, default=3600, help="seconds per agent run")
    parser.add_argument("--agents", nargs="+", default=["cline", "pycline-native", "pycline-xml"])
    parser.add_argument("--dump", type=Path, help="write every request body into this folder")
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
    turns = [4, 50] if args.quick else args.turns
    if args.dump is not None:
        args.dump.mkdir(parents=True, exist_ok=True)
    print(f"tokens counted at {CHARS_PER_TOKEN} characters per token (cline_task.request_chars)")
    failed = False
    for n in turns:
        runs = {name: measure(name, n, args.timeout, args.dump) for name in args.agents}
        if "cline" not in runs:
            runs = {"cline": Run("cline", n), **runs}
        report(runs, args.per_turn)
        failed = failed or any(r.problem for r in runs.values())
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
