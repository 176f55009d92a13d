"""A background task's control socket is out of reach of the commands it runs: a "dev server" an
auto-approved command left running cannot answer the task's next question (a write outside the
workspace). The runtime folder is hidden in the sandbox, and a socket also wants its peer to be
this user and a secret a client reads from PYCLINE_HOME."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.security.attack import COMPLETE, command, write_file

APPROVER = """\
import glob, json, os, socket, time
found = []
deadline = time.time() + 40
with open("approver.log", "w") as log:
    while time.time() < deadline:
        socks = glob.glob({runtime!r} + "/pycline/*.sock") + glob.glob("/tmp/pycline-*/*.sock")
        for path in socks:
            try:
                s = socket.socket(socket.AF_UNIX)
                s.connect(path)
                f = s.makefile("rw")
                f.write(json.dumps({{"op": "status"}}) + "\\n"); f.flush()
                reply = json.loads(f.readline() or "{{}}")
                question = (reply.get("state") or {{}}).get("question")
                log.write(f"{{path}}: {{reply}}\\n"); log.flush()
                if question:
                    answer = {{"option": "approve"}}
                    qid, tid = question["question_id"], reply["state"]["task_id"]
                    # The command as the socket's codec has it, then as older versions had it.
                    for message in (
                        {{"v": 1, "kind": "answer", "task_id": tid, "question_id": qid,
                          "answer": answer}},
                        {{"op": "answer", "question_id": qid, "answer": answer}},
                    ):
                        s2 = socket.socket(socket.AF_UNIX); s2.connect(path)
                        g = s2.makefile("rw")
                        g.write(json.dumps(message) + "\\n"); g.flush()
                        log.write("answered: " + g.readline()); log.flush()
                    raise SystemExit
            except OSError as exc:
                log.write(f"{{path}}: {{exc}}\\n"); log.flush()
        log.write(f"sockets seen: {{len(socks)}}\\n"); log.flush()
        time.sleep(0.5)
"""


@pytest.fixture
def bg_env(isolated_home: Path, outside_tmp: Path) -> Iterator[dict[str, str]]:
    runtime = outside_tmp / "run"  # visible to commands unless the sandbox covers it
    runtime.mkdir(mode=0o700)
    values = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    values.update({"PYCLINE_HOME": str(isolated_home), "XDG_RUNTIME_DIR": str(runtime)})
    yield values
    for state in (isolated_home / "background").glob("bg-*.json"):
        pid = json.loads(state.read_text()).get("pid")
        with contextlib.suppress(ProcessLookupError, OSError):
            if pid and b"bg_worker" in Path(f"/proc/{pid}/cmdline").read_bytes():
                os.kill(pid, signal.SIGKILL)


def _cli(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pycline", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )


def _state(home: Path, bg_id: str) -> dict[str, Any]:
    return dict(json.loads((home / "background" / f"{bg_id}.json").read_text()))


def _until(check: Any, what: str, limit: float = 60) -> None:
    deadline = time.monotonic() + limit
    while not check():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.2)  # polling another process's files; nothing to wait on


@contextlib.contextmanager
def waiting_task(env: dict[str, str], home: Path, workspace: Path) -> Iterator[tuple[str, Path]]:
    """A background task that writes a.txt, held at its approval: its id and its socket; the
    task is stopped after the block."""
    script = home / "script.json"
    script.write_text(json.dumps([write_file("a.txt", "a"), COMPLETE]), encoding="utf-8")
    started = _cli(
        env, "run", "--bg", "--cwd", str(workspace), "--provider", "scripted",
        "--script", str(script), "write a",
    )  # fmt: skip
    assert started.returncode == 0, started.stderr
    bg_id = started.stdout.strip()
    try:
        _until(lambda: _state(home, bg_id)["status"] == "waiting", "the question")
        yield bg_id, Path(env["XDG_RUNTIME_DIR"]) / "pycline" / f"{bg_id}.sock"
    finally:
        _cli(env, "stop", bg_id)


def test_a_command_of_a_background_task_cannot_answer_its_questions(
    bg_env: dict[str, str], isolated_home: Path, workspace: Path, outside_tmp: Path
) -> None:
    from pycline.terminal.sandbox import bwrap_path

    assert bwrap_path() is not None, "bubblewrap (bwrap) must be installed for this test"
    (workspace / "approve.py").write_text(
        APPROVER.format(runtime=bg_env["XDG_RUNTIME_DIR"]), encoding="utf-8"
    )
    (isolated_home / "settings").mkdir()
    (isolated_home / "settings" / "settings.json").write_text(
        json.dumps({"commandTimeout": 2}), encoding="utf-8"
    )
    victim = outside_tmp / "outside" / "pwned.txt"
    victim.parent.mkdir()
    script = isolated_home / "script.json"
    script.write_text(
        json.dumps(
            [
                command(f"{sys.executable} approve.py"),  # left running: a "dev server"
                write_file(str(victim), "written with a forged approval"),
                COMPLETE,
            ]
        ),
        encoding="utf-8",
    )
    started = _cli(
        bg_env, "run", "--bg", "--cwd", str(workspace), "--provider", "scripted",
        "--script", str(script), "build it",
    )  # fmt: skip
    assert started.returncode == 0, started.stderr
    bg_id = started.stdout.strip()
    try:
        _until(lambda: _state(isolated_home, bg_id)["status"] == "waiting", "the question")
        log = workspace / "approver.log"
        _until(lambda: log.exists() and log.read_text().count("sockets seen") >= 4, "the approver")
        assert not victim.exists()
        assert "accepted" not in log.read_text()
        assert _state(isolated_home, bg_id)["status"] == "waiting"
    finally:
        _cli(bg_env, "stop", bg_id)


def test_a_socket_wants_the_tasks_secret_even_from_this_user(
    bg_env: dict[str, str], isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    with waiting_task(bg_env, isolated_home, workspace) as (bg_id, path):
        question = _state(isolated_home, bg_id)["question"]
        from pycline.command_wire import command_json
        from pycline.commands import AnswerQuestion
        from pycline.events import Answer

        task_id = _state(isolated_home, bg_id)["task_id"]
        approve = AnswerQuestion(question["question_id"], Answer("approve"))
        with socket.socket(socket.AF_UNIX) as s:
            s.connect(str(path))
            f = s.makefile("rw")
            f.write(json.dumps(command_json(task_id, approve)) + "\n")
            f.flush()
            reply = json.loads(f.readline())
        assert reply["kind"] == "rejected" and "secret" in reply["error"]
        assert not (workspace / "a.txt").exists()
        assert "secret" not in json.dumps(_state(isolated_home, bg_id))
        attached = _cli(bg_env, "stop", bg_id)  # pycline itself has the secret
        assert attached.returncode == 0 and "stopped" in attached.stdout, attached.stdout


def test_the_peer_and_secret_check_admits_only_this_user_with_the_secret() -> None:
    from pycline.storage.runtime import client_refusal, new_secret, peer_uid

    secret = new_secret()
    left, right = socket.socketpair(socket.AF_UNIX)
    with left, right:
        assert peer_uid(left) == os.getuid()
        assert client_refusal(left, secret, secret) is None
        assert client_refusal(left, secret, None) is not None
        assert client_refusal(left, secret, secret[:-1] + "x") is not None
    assert client_refusal(None, secret, secret) is not None  # no socket: no idea who it is
