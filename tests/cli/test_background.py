"""Background tasks end to end: `pycline run --bg` in a terminal that then closes, `pycline
tasks` from elsewhere, `pycline attach` answering its question, `pycline stop`, a killed worker."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pexpect
import pytest

from pycline.storage.task_store import TaskStore
from tests.app.batch_helpers import COMPLETE, write_file_reply, write_script


@pytest.fixture
def env(isolated_home: Path) -> Iterator[dict[str, str]]:
    # Socket paths must stay short (108 bytes), so not under pytest's deep tmp_path.
    runtime = tempfile.mkdtemp(prefix="rt", dir="/tmp")
    values = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    values.update({"PYCLINE_HOME": str(isolated_home), "XDG_RUNTIME_DIR": runtime})
    yield values
    for state in (isolated_home / "background").glob("bg-*.json"):
        pid = json.loads(state.read_text()).get("pid")
        if pid and _is_our_worker(pid):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
    shutil.rmtree(runtime, ignore_errors=True)


def _is_our_worker(pid: int) -> bool:
    try:
        return b"pycline.cli.bg_worker" in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False


def cli(env: dict[str, str], *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pycline", *args],
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
    )


def board(env: dict[str, str]) -> list[dict[str, Any]]:
    proc = cli(env, "tasks", "--json")
    assert proc.returncode == 0, proc.stderr
    return list(json.loads(proc.stdout))


def wait_for(env: dict[str, str], bg_id: str, status: str) -> dict[str, Any]:
    deadline = time.monotonic() + 30
    while True:
        entry = next(e for e in board(env) if e["id"] == bg_id)
        if entry["status"] == status or time.monotonic() > deadline:
            assert entry["status"] == status, entry
            return entry


def start_in_closing_terminal(
    env: dict[str, str], workspace: Path, script: Path, task: str = "write the notes"
) -> str:
    """`pycline run --bg` in a pseudo-terminal, which is then hung up (the terminal closes)."""
    args = ["-m", "pycline", "run", "--bg", "--cwd", str(workspace)]
    args += ["--provider", "scripted", "--script", str(script), task]
    term = pexpect.spawn(sys.executable, args, env=env, encoding="utf-8", timeout=60)
    term.expect(r"(bg-[0-9a-f]+)\r?\n")
    bg_id = str(term.match.group(1))
    term.expect(pexpect.EOF)
    term.close(force=True)  # SIGHUP to the terminal's session
    return bg_id


def test_a_background_task_survives_its_terminal_and_is_answered_from_another(
    env: dict[str, str], workspace: Path, tmp_path: Path
) -> None:
    script = write_script(tmp_path / "s.json", [write_file_reply("notes.txt", "hello"), COMPLETE])
    bg_id = start_in_closing_terminal(env, workspace, script)
    entry = wait_for(env, bg_id, "waiting")
    assert "notes.txt" in entry["question"]
    sock = Path(env["XDG_RUNTIME_DIR"]) / "pycline" / f"{bg_id}.sock"
    assert stat.S_IMODE(sock.stat().st_mode) == 0o600
    assert stat.S_IMODE(sock.parent.stat().st_mode) == 0o700
    listing = cli(env, "tasks")
    assert "WAITING" in listing.stdout and bg_id in listing.stdout
    attached = cli(env, "attach", bg_id, stdin="1\n")
    assert attached.returncode == 0, attached.stderr
    assert "Approve: write_to_file" in attached.stdout and "Task completed" in attached.stdout
    done = wait_for(env, bg_id, "completed")
    assert (workspace / "notes.txt").read_text() == "hello\n"
    assert done["task_id"] and not sock.exists()
    # Attaching to a finished task shows how it ended.
    again = cli(env, "attach", bg_id)
    assert again.returncode == 0 and "completed" in again.stdout


def test_stop_cancels_a_waiting_background_task(
    env: dict[str, str], workspace: Path, tmp_path: Path
) -> None:
    script = write_script(tmp_path / "s.json", [write_file_reply("x.txt", "x"), COMPLETE])
    bg_id = start_in_closing_terminal(env, workspace, script)
    wait_for(env, bg_id, "waiting")
    stopped = cli(env, "stop", bg_id)
    assert stopped.returncode == 0 and "stopped" in stopped.stdout
    wait_for(env, bg_id, "cancelled")
    assert not (workspace / "x.txt").exists()


def test_a_killed_background_process_shows_as_failed(
    env: dict[str, str], workspace: Path, tmp_path: Path, isolated_home: Path
) -> None:
    script = write_script(tmp_path / "s.json", [write_file_reply("x.txt", "x"), COMPLETE])
    bg_id = start_in_closing_terminal(env, workspace, script)
    wait_for(env, bg_id, "waiting")
    state = json.loads((isolated_home / "background" / f"{bg_id}.json").read_text())
    os.kill(state["pid"], signal.SIGKILL)
    entry = wait_for(env, bg_id, "failed")
    assert "ended unexpectedly" in entry["reason"]
    attach = cli(env, "attach", bg_id)
    assert attach.returncode == 2 and "not running" in attach.stderr


async def test_malformed_commands_on_the_control_socket_are_refused_and_it_keeps_serving(
    env: dict[str, str], workspace: Path, tmp_path: Path
) -> None:
    import asyncio

    script = write_script(tmp_path / "s.json", [write_file_reply("m.txt", "m"), COMPLETE])
    bg_id = start_in_closing_terminal(env, workspace, script)
    entry = wait_for(env, bg_id, "waiting")
    task_id = entry["task_id"]
    sock = Path(env["XDG_RUNTIME_DIR"]) / "pycline" / f"{bg_id}.sock"
    attach = _attach_line(env, bg_id)

    async def replies(*lines: str) -> list[dict[str, Any]]:
        reader, writer = await asyncio.open_unix_connection(str(sock))
        writer.write(attach + "".join(f"{line}\n" for line in lines).encode())
        got: list[dict[str, Any]] = []
        async with asyncio.timeout(30):
            while len(got) < len(lines):
                message = json.loads(await reader.readline())
                if "kind" in message:
                    got.append(message)
        writer.close()
        return got

    question = next(
        q for q in await _questions(sock, attach) if q["question"]["kind"] == "approval"
    )
    answer = {"v": 1, "kind": "answer", "task_id": task_id, "question_id": question["question_id"]}
    refused = await replies(
        "{not json",
        json.dumps({"v": 1, "task_id": task_id, "kind": "explode"}),
        json.dumps({"v": 1, "task_id": "someone-else", "kind": "cancel"}),
        json.dumps({**answer, "answer": {"option": "maybe"}, "request": 9}),
    )
    assert [r["kind"] for r in refused] == ["rejected"] * 4
    assert "not an option here" in refused[3]["error"] and refused[3]["request"] == 9
    assert next(e for e in board(env) if e["id"] == bg_id)["status"] == "waiting"
    [ok] = await replies(json.dumps({**answer, "answer": {"option": "approve"}}))
    assert ok["kind"] == "accepted"
    wait_for(env, bg_id, "completed")
    assert (workspace / "m.txt").read_text() == "m\n"


def _attach_line(env: dict[str, str], bg_id: str) -> bytes:
    """The first message a client sends: attach, with the task's secret (from PYCLINE_HOME)."""
    secret = (Path(env["PYCLINE_HOME"]) / "background" / f"{bg_id}.secret").read_text()
    return (json.dumps({"op": "attach", "secret": secret}) + "\n").encode()


async def _questions(sock: Path, attach: bytes) -> list[dict[str, Any]]:
    import asyncio

    reader, writer = await asyncio.open_unix_connection(str(sock))
    writer.write(attach)
    found: list[dict[str, Any]] = []
    async with asyncio.timeout(30):
        while not found:
            message = json.loads(await reader.readline())
            if message.get("type") == "question":
                found.append(message)
    writer.close()
    return found


def test_an_approved_new_task_continues_in_the_background_process(
    env: dict[str, str], workspace: Path, tmp_path: Path, isolated_home: Path
) -> None:
    new_task = "<new_task>\n<context>\nContinue: write more notes.\n</context>\n</new_task>"
    replies = [new_task, write_file_reply("more.txt", "m"), COMPLETE]
    script = write_script(tmp_path / "s.json", replies)
    bg_id = start_in_closing_terminal(env, workspace, script, "big job /newtask")
    wait_for(env, bg_id, "waiting")  # the hand-off
    assert cli(env, "attach", bg_id, stdin="1\n1\n").returncode == 0
    done = wait_for(env, bg_id, "completed")
    assert (workspace / "more.txt").read_text() == "m\n"
    records = {r.id: r.task for r in TaskStore(isolated_home).index.list()}
    assert records[done["task_id"]] == "Continue: write more notes."  # the board follows it
    assert sorted(records.values()) == ["Continue: write more notes.", "big job /newtask"]
