"""Tasks on the board from the terminal: `pycline run --bg`, `pycline tasks`, `attach`, `stop`.

Each background task is its own detached process with a control socket (see
`pycline.app.background`); every task a terminal, web UI or editor runs has one too while it
runs. These commands start a background task, list them all, talk to any one.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import json
import os
import secrets
import signal
import subprocess
import sys
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

from pycline.app.background import state as bg_state
from pycline.app.background.board import board
from pycline.app.background.paths import (
    BackgroundError,
    make_secret,
    runtime_dir,
    socket_path,
    state_dir,
)
from pycline.app.services.exit_codes import ExitCode
from pycline.app.settings.home import pycline_home
from pycline.errors import PyclineError

_START_TIMEOUT = 30.0


def start_background(argv: list[str], ns: argparse.Namespace) -> int:
    """Start `pycline run ARGV` detached; print its id and return at once."""
    home = pycline_home()
    cwd = Path(ns.cwd).expanduser().resolve()
    if not cwd.is_dir():
        print(f"pycline: --cwd {ns.cwd}: not a folder", file=sys.stderr)
        return 2
    if ns.worktree is not None:
        print("pycline: --bg and --worktree cannot be combined yet", file=sys.stderr)
        return 2
    bg_id = "bg-" + secrets.token_hex(6)
    try:
        run_dir = runtime_dir()
    except BackgroundError as exc:
        print(f"pycline: {exc}", file=sys.stderr)
        return 2
    # The folder goes first: after a `--` it would be words of the task.
    cut = argv.index("--") if "--" in argv else len(argv)
    args = ["--cwd", str(cwd), *(a for a in argv[:cut] if a != "--bg"), *argv[cut:]]
    log = state_dir(home) / f"{bg_id}.log"
    state = bg_state.BgState(
        id=bg_id,
        task=" ".join(ns.task),
        workspace=str(cwd),
        pid=0,
        status="starting",
        started=time.time(),
        log=str(log),
    )
    bg_state.save(home, state)
    make_secret(home, bg_id)
    spec = run_dir / f"{bg_id}.spec.json"
    fd = os.open(spec, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        json.dump({"id": bg_id, "argv": args, "home": str(home)}, fh)
    with open(log, "ab") as out:
        os.chmod(log, 0o600)
        proc = subprocess.Popen(
            [sys.executable, "-m", "pycline.cli.bg_worker", str(spec)],
            # Relative paths in the arguments (--script, --cwd) mean what they mean here.
            cwd=os.getcwd(),
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=out,
            start_new_session=True,  # no SIGHUP or Ctrl-C from this terminal
        )
    bg_state.save(home, state.updated(pid=proc.pid))
    if not _wait_started(home, bg_id, proc):
        ended = bg_state.load(home, bg_id)
        why = ended.reason if ended is not None and ended.reason else f"see {log}"
        print(f"pycline: background task {bg_id} did not start: {why}", file=sys.stderr)
        return 1
    print(bg_id)
    print(
        f"pycline: running in the background; `pycline attach {bg_id}` to follow and answer, "
        f"`pycline stop {bg_id}` to stop",
        file=sys.stderr,
    )
    return 0


def _wait_started(home: Path, bg_id: str, proc: subprocess.Popen[bytes]) -> bool:
    """Until its socket exists (or it ended already: a quick task, or a bad configuration)."""
    deadline = time.monotonic() + _START_TIMEOUT
    path = socket_path(bg_id)
    while time.monotonic() < deadline:
        current = bg_state.load(home, bg_id)
        if path.exists() or (current is not None and current.status in bg_state.FINISHED):
            return current is None or current.status != "failed" or current.task_id is not None
        if proc.poll() is not None:
            current = bg_state.load(home, bg_id)
            return current is not None and current.status in ("completed", "cancelled")
        time.sleep(0.05)  # polling a process we just started; nothing to wait on
    return False


# --- pycline tasks --------------------------------------------------------------------------


def tasks_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pycline tasks",
        description="This user's tasks: every task running in a terminal, web UI or editor, "
        "and background tasks (running, waiting for an answer, finished and failed), with "
        "their cost.",
    )
    parser.add_argument("--json", action="store_true", help="JSON output")
    return parser


def run_tasks_board(argv: list[str]) -> int:
    ns = tasks_parser().parse_args(argv)
    entries = board(pycline_home())
    if ns.json:
        print(json.dumps([asdict(e) for e in entries], indent=1))
        return 0
    if not entries:
        print("No tasks running. Start one in the background with `pycline run --bg TASK`.")
        return 0
    for e in entries:
        when = dt.datetime.fromtimestamp(e.started).strftime("%m-%d %H:%M")
        status = e.status.upper() if e.status == "waiting" else e.status
        print(f"{e.id}  {status:<9} {e.front_end:<10} ${e.cost:<8.4f} {when}  {e.task[:60]}")
        print(f"    in {e.workspace}")
        if e.question:
            print(f"    waiting for: {e.question} (`pycline attach {e.id}`)")
        elif e.reason and e.status != "completed":
            print(f"    {e.reason[:200]}")
    return 0


# --- pycline stop ---------------------------------------------------------------------------


def stop_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pycline stop",
        description="Stop a task (it is saved and can be resumed); a task of a terminal, web UI "
        "or editor is cancelled there, and that program keeps running.",
    )
    parser.add_argument("id", help="the task's id (see `pycline tasks`)")
    return parser


def run_stop(argv: list[str]) -> int:
    ns = stop_parser().parse_args(argv)
    try:
        from pycline.app.background import client

        print(asyncio.run(client.stop(pycline_home(), ns.id)))
    except PyclineError as exc:
        print(f"pycline: {exc}", file=sys.stderr)
        return 2
    return 0


# --- pycline attach -------------------------------------------------------------------------


def attach_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pycline attach",
        description="Follow a task running anywhere (the background, a terminal, the web UI, an "
        "editor): what it did so far, then live; answer its questions (Ctrl-C detaches; the "
        "task keeps running).",
    )
    parser.add_argument("id", help="the task's id (see `pycline tasks`)")
    return parser


def run_attach(argv: list[str]) -> int:
    ns = attach_parser().parse_args(argv)
    try:
        return asyncio.run(_attach(ns.id))
    except KeyboardInterrupt:
        print(f"\npycline: detached; {ns.id} keeps running", file=sys.stderr)
        return 0
    except PyclineError as exc:
        print(f"pycline: {exc}", file=sys.stderr)
        return 2


async def _attach(bg_id: str) -> int:
    from pycline.app.background import client

    state = bg_state.load(pycline_home(), bg_id)
    if state is None:
        raise BackgroundError(f"no task {bg_id!r} on the board (see `pycline tasks`)")
    if state.status in bg_state.FINISHED:
        _state_line(state.to_json())
        return _ended({"status": state.status, "reason": state.reason})
    async with client.attach(pycline_home(), bg_id, state.task_id or "") as conn:
        return await _Attached(bg_id, conn).run()


class _Attached:
    """Events print as they come while a question waits for its answer here; a question
    answered elsewhere withdraws the prompt with a line saying where."""

    def __init__(self, bg_id: str, conn: Any) -> None:
        from pycline.cli.bg_render import attached_screen
        from pycline.cli.lines import LineReader

        self.bg_id, self.conn = bg_id, conn
        self.screen = attached_screen()
        self.reader = LineReader()
        self.prompts: dict[str, asyncio.Task[None]] = {}  # by question id
        self.answered: set[str] = set()  # the questions answered here
        self.detached: asyncio.Future[int] = asyncio.get_running_loop().create_future()

    async def run(self) -> int:
        # Ctrl-C detaches from here, by the loop's own handler: it wakes the loop at once, and
        # leaving does not hang on a cancellation travelling through the socket's close.
        loop = asyncio.get_running_loop()
        loop.add_signal_handler(signal.SIGINT, self._detach)
        reading = asyncio.ensure_future(self._read())
        try:
            await asyncio.wait((reading, self.detached), return_when=asyncio.FIRST_COMPLETED)
            return self.detached.result() if self.detached.done() else reading.result()
        finally:
            loop.remove_signal_handler(signal.SIGINT)
            for task in (reading, *self.prompts.values()):
                task.cancel()

    def _detach(self) -> None:
        if not self.detached.done():
            keeps = "waiting" if self.prompts else "running"
            print(f"\npycline: detached; {self.bg_id} keeps {keeps}", file=sys.stderr, flush=True)
            self.detached.set_result(0)

    async def _read(self) -> int:
        from pycline.cli.bg_render import answered_elsewhere, render_event

        async for message in self.conn.messages():
            kind = message.get("type")
            if kind == "event":
                event = message.get("event") or {}
                render_event(self.screen, event)
                if event.get("kind") == "question_answered":
                    prompt = self.prompts.pop(str(event.get("question_id")), None)
                    if prompt is not None and event.get("question_id") not in self.answered:
                        prompt.cancel()
                        print(f"\n{answered_elsewhere(event)}", flush=True)
            elif kind == "question":
                question_id = str(message["question_id"])
                if question_id not in self.prompts:
                    self.prompts[question_id] = asyncio.ensure_future(
                        self._ask(question_id, message.get("question") or {})
                    )
            elif message.get("kind") == "rejected":
                print(f"pycline: {message.get('error')}", file=sys.stderr)
            elif kind == "ended":
                return _ended(message)
            elif kind == "state":
                _state_line(message.get("state") or {})
        return 0

    async def _ask(self, question_id: str, question: dict[str, Any]) -> None:
        from pycline.cli.bg_render import prompt_answer

        answer = await prompt_answer(self.reader, question)
        if answer is None:
            self._detach()
            return
        if question_id in self.prompts:  # not withdrawn meanwhile
            self.answered.add(question_id)
            await self.conn.answer(question_id, answer)


def _state_line(state: dict[str, Any]) -> None:
    print(f"[{state.get('id')}] {state.get('status')} · {state.get('task', '')[:80]}")


def _ended(message: dict[str, Any]) -> int:
    status = message.get("status")
    reason = f": {message['reason']}" if message.get("reason") else ""
    print(f"[ended] {status}{reason}")
    return ExitCode.OK if status == "completed" else ExitCode.FAILED
