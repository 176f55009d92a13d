"""A third-party ACP client from npm (`acpx`, pinned in .ci/run) drives `pycline acp`."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
from pathlib import Path

import pytest

from tests.acp.harness import COMPLETE, agent_command, command, replace, script_file

REPO = Path(__file__).resolve().parents[2]
ACPX = REPO / ".ci" / "node" / "node_modules" / ".bin" / "acpx"


def acpx_bin() -> Path:
    # Not a skip: without the client this test would prove nothing.
    if not ACPX.exists():
        pytest.fail(f"acpx missing at {ACPX}; run: npm install --prefix .ci/node acpx@0.19.1")
    return ACPX


def test_acpx_completes_a_scripted_edit_task_against_pycline(
    tmp_path: Path, workspace: Path, isolated_home: Path
) -> None:
    (workspace / "app.py").write_text("port = 8000\n", encoding="utf-8")
    script = script_file(
        tmp_path, "Changing the port.\n" + replace("app.py", "port = 8000", "port = 8080"), COMPLETE
    )
    home = tmp_path / "user-home"  # acpx keeps its session records under HOME
    home.mkdir()
    env = {**os.environ, "HOME": str(home), "PYCLINE_HOME": str(isolated_home)}
    agent = shlex.join(agent_command(script))
    options = ["--agent", agent, "--cwd", str(workspace), "--approve-all", "--format", "json"]
    done = subprocess.run(
        [str(acpx_bin()), *options, "--timeout", "60", "exec", "Serve on port 8080"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert (workspace / "app.py").read_text(encoding="utf-8") == "port = 8080\n"
    messages = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    updates = [m["params"]["update"] for m in messages if m.get("method") == "session/update"]
    diffs = [
        c
        for u in updates
        if u["sessionUpdate"] == "tool_call_update"
        for c in u.get("content") or []
        if c["type"] == "diff"
    ]
    assert diffs and diffs[0]["newText"] == "port = 8080\n"
    # What the editor shows as the tool's output is for people: no file quoted for the model.
    shown = json.dumps(updates)
    assert "final_file_content" not in shown and "Saved app.py." in shown
    assert any(m.get("method") == "session/request_permission" for m in messages)
    final = next(m for m in messages if "result" in m and "stopReason" in (m["result"] or {}))
    assert final["result"]["stopReason"] == "end_turn"


def test_acpx_is_asked_about_the_agents_command_not_the_sandboxs_command_line(
    tmp_path: Path, workspace: Path, isolated_home: Path
) -> None:
    script = script_file(tmp_path, command("echo ran-$((6*7))"), COMPLETE)
    home = tmp_path / "user-home"
    home.mkdir()
    env = {**os.environ, "HOME": str(home), "PYCLINE_HOME": str(isolated_home)}
    agent = shlex.join(agent_command(script))
    options = ["--agent", agent, "--cwd", str(workspace), "--approve-all", "--format", "json"]
    done = subprocess.run(
        [str(acpx_bin()), *options, "--timeout", "60", "exec", "Run it"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    shown = done.stdout + done.stderr
    assert "ran-42" in shown  # it ran, in the editor's terminal
    created = [line for line in shown.splitlines() if "terminal/create" in line]
    assert created, shown[-3000:]
    for line in created:
        assert "echo ran-$((6*7))" in line
        assert "--setenv" not in line and "bwrap" not in line and len(line) < 600, line
    assert not list((isolated_home / "run").glob("cmd-*"))  # the launcher is gone
