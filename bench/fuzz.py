"""Fuzz bench: thousands of generated malformed model replies through the real entry point.

Run: .venv/bin/python bench/fuzz.py [--replies 10000] [--per-task 100] [--jobs 2] [--seed 1]

Each task is a real `pycline run` process against a loopback server speaking the OpenAI or
Anthropic wire format (the official SDKs read it), in XML or native tool-call mode, fed
`--per-task` generated replies (bench/fuzz_replies.py: broken tags, bad JSON arguments, huge
and binary parameters, lone surrogates, NULs, unknown tools, deep nesting, raw SSE oddities,
HTTP errors) and then a completion. Retries wait nothing and mistakes never stop the task, so
every reply is read. Edits inside a throwaway workspace are allowed; commands, the browser and
web fetches are refused (headless, no --yes).

Printed: replies the server answered (by kind), and the three failures this must never see —
tracebacks (on stderr), hangs (a task past its time limit), and histories that do not load
afterwards — with the seed and output of each, to reproduce. The target is 0 of each.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from tests.fakes import raw_streams as raw
from tests.fakes.raw_streams import RawFake, Wire

from fuzz_replies import reply

MODELS = {"openai": "gpt-5", "anthropic": "claude-sonnet-4-5"}
BASE = {"openai": "/v1", "anthropic": ""}
SECONDS_PER_REPLY = 2.0  # a task taking longer than this per reply (plus startup) is a hang


@dataclass
class Outcome:
    seed: int
    wire: str
    native: bool
    served: int = 0
    kinds: Counter[str] = field(default_factory=Counter)
    traceback: str = ""
    hang: bool = False
    unloadable: str = ""
    exit_code: int | None = None


def _workspace(root: Path) -> Path:
    ws = root / "project"
    (ws / "sub").mkdir(parents=True)
    (ws / "a.txt").write_text("alpha\nbeta\n", encoding="utf-8")
    (ws / "code.py").write_text("def f():\n\treturn 1\n", encoding="utf-8")
    (ws / "sub" / "b.md").write_text("# notes\n", encoding="utf-8")
    os.mkfifo(ws / "pipe")
    return ws


def _settings(home: Path, native: bool, checkpoints: bool) -> None:
    settings = {
        "toolCallFormat": "native" if native else "xml",
        "retryBaseDelay": 0,
        "maxRetries": 20,
        "maxConsecutiveMistakes": 1_000_000,
        "enableCheckpoints": checkpoints,
        "autoApprove": {"readFiles": True, "editFiles": True, "executeSafeCommands": False,
                        "useBrowser": False, "useMcp": False},
    }  # fmt: skip
    (home / "settings").mkdir(parents=True)
    (home / "settings" / "settings.json").write_text(json.dumps(settings), encoding="utf-8")


def run_task(seed: int, per_task: int) -> Outcome:
    rng = random.Random(seed)
    wire: Wire = "openai" if seed % 2 else "anthropic"
    native = seed % 4 in (0, 1)
    outcome = Outcome(seed, wire, native)
    planned = [reply(wire, native, rng) for _ in range(per_task)]
    with tempfile.TemporaryDirectory(prefix="pycline-fuzz-") as tmp:
        root = Path(tmp)
        home = root / "home"
        workspace = _workspace(root)
        _settings(home, native, checkpoints=seed % 3 == 0)
        replies = [r for _, r in planned] + [raw.completion(wire)]
        limit = 30 + SECONDS_PER_REPLY * len(replies)
        with RawFake(replies, seed=seed, max_piece=4096) as server:
            env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
            env.update({"PYCLINE_HOME": str(home), "NO_COLOR": "1",
                        "PYCLINE_LANGUAGE_SERVERS": "off"})  # fmt: skip
            argv = [sys.executable, "-m", "pycline", "run", "--provider", wire,
                    "--base-url", server.origin + BASE[wire], "--api-key", "k",
                    "--model", MODELS[wire], "fuzz the agent"]  # fmt: skip
            proc = subprocess.Popen(
                argv, cwd=workspace, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, start_new_session=True,
            )  # fmt: skip
            try:
                _, err = proc.communicate(timeout=limit)
            except subprocess.TimeoutExpired:
                outcome.hang = True
                os.killpg(proc.pid, signal.SIGKILL)  # with whatever it started
                _, err = proc.communicate()
            outcome.exit_code = proc.returncode
            stderr = err.decode("utf-8", "replace")
            if "Traceback" in stderr:
                outcome.traceback = stderr[-4000:]
            outcome.served = min(len(server.model_requests), len(planned))
        outcome.kinds.update(kind for kind, _ in planned[: outcome.served])
        outcome.unloadable = _unloadable(home)
    return outcome


def _unloadable(home: Path) -> str:
    """Why the task's saved history does not load ("" when it does)."""
    from pycline.storage.task_store import TaskStore

    tasks = list((home / "tasks").iterdir()) if (home / "tasks").is_dir() else []
    if len(tasks) != 1:
        return f"{len(tasks)} task folders"
    try:
        folder = TaskStore(home).open(tasks[0].name)
        folder.load_api_history()
        folder.load_ui_messages()
        folder.load_record()
        for name in ("api_conversation_history.json", "ui_messages.json"):
            path = tasks[0] / name
            if path.exists():
                json.loads(path.read_bytes().decode("utf-8"))
    except Exception as exc:  # anything at all is the failure being counted
        return f"{type(exc).__name__}: {exc}"
    return ""


def run(replies: int, per_task: int, jobs: int, seed: int) -> list[Outcome]:
    tasks = max(1, -(-replies // per_task))
    seeds = [seed * 100_000 + i for i in range(tasks)]
    with ThreadPoolExecutor(jobs) as pool:
        return list(pool.map(lambda s: run_task(s, per_task), seeds))


def report(outcomes: list[Outcome], seconds: float) -> int:
    served = sum(o.served for o in outcomes)
    kinds: Counter[str] = Counter()
    for o in outcomes:
        kinds.update(o.kinds)
    tracebacks = [o for o in outcomes if o.traceback]
    hangs = [o for o in outcomes if o.hang]
    unloadable = [o for o in outcomes if o.unloadable]
    modes = Counter(f"{o.wire}/{'native' if o.native else 'xml'}" for o in outcomes)
    print(f"{served} generated replies answered in {len(outcomes)} tasks, {seconds:.0f} s")
    print("  by kind:  " + ", ".join(f"{k} {n}" for k, n in kinds.most_common()))
    print("  by mode:  " + ", ".join(f"{k} {n} tasks" for k, n in sorted(modes.items())))
    print(f"tracebacks: {len(tracebacks)}   hangs: {len(hangs)}   unloadable histories: "
          f"{len(unloadable)}")  # fmt: skip
    for o in tracebacks:
        print(f"\n--- traceback, seed {o.seed} ({o.wire}, native={o.native}):\n{o.traceback}")
    for o in hangs:
        print(f"--- hang, seed {o.seed} ({o.wire}, native={o.native})")
    for o in unloadable:
        print(f"--- unloadable history, seed {o.seed}: {o.unloadable}")
    return 1 if tracebacks or hangs or unloadable else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--replies", type=int, default=10_000)
    parser.add_argument("--per-task", type=int, default=100)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    ns = parser.parse_args(argv)
    started = time.monotonic()
    outcomes = run(ns.replies, ns.per_task, ns.jobs, ns.seed)
    return report(outcomes, time.monotonic() - started)


if __name__ == "__main__":
    sys.exit(main())
