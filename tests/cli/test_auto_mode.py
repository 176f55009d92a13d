"""`pycline run --auto`: sandboxed work runs unasked, what needs more asks, and no sandbox means
no auto mode.

Through the real front end: `pycline run` as a subprocess against a local fake OpenAI server,
commands in the bubblewrap sandbox.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import pexpect

from tests.cli.test_headless import run_cli
from tests.fakes.openai_server import FakeOpenAI

DONE = "<attempt_completion>\n<result>Done.</result>\n</attempt_completion>"


def command(line: str, *, escalate: str = "") -> str:
    extra = f"<escalate>{escalate}</escalate>\n" if escalate else ""
    return (
        f"<execute_command>\n<command>{line}</command>\n"
        f"<requires_approval>true</requires_approval>\n{extra}</execute_command>"
    )


def write(path: str, text: str) -> str:
    return f"<write_to_file>\n<path>{path}</path>\n<content>\n{text}\n</content>\n</write_to_file>"


def _events(out: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in out.splitlines() if line.startswith("{")]


def _asked(events: list[dict[str, Any]]) -> list[str]:
    return [
        e["question"]["summary"]
        for e in events
        if e["kind"] == "question_asked" and e["question"]["kind"] == "approval"
    ]


def test_auto_runs_sandboxed_commands_and_inside_edits_unasked_and_asks_for_more(
    isolated_home: Path, workspace: Path
) -> None:
    outside = workspace.parent / "outside.txt"
    with FakeOpenAI() as srv:
        port = srv.port
        # Reaching the fake server from inside proves the network is off (its own loopback).
        probe = (
            f"{sys.executable} -c \"import socket; socket.create_connection(('127.0.0.1', {port}), 3)\""
            " && echo net-on || echo net-off"
        )
        srv.add(
            command(f"echo ran > made.txt; {probe}"),
            write("notes.txt", "inside"),
            command(f"curl -s http://127.0.0.1:{port}/v1/models"),
            write(str(outside), "outside"),
            command(f"echo x > {outside}"),
            command("echo escalated", escalate="network"),
            DONE,
        )
        proc = run_cli(
            ["run", "--auto", "--sandbox", "workspace-write", "--provider", "openai",
             "--base-url", srv.base_url, "--model", "gpt-4o", "--json", "work alone"],
            home=isolated_home,
            cwd=workspace,
        )  # fmt: skip
    # 4: the run refused what auto mode asks for (pycline.app.services.exit_codes)
    assert proc.returncode == 4, proc.stderr
    events = _events(proc.stdout)
    # The sandboxed command and the in-workspace edit ran without a question.
    assert (workspace / "made.txt").read_text() == "ran\n"
    assert (workspace / "notes.txt").read_text() == "inside\n"
    outputs = "".join(e["text"] for e in events if e["kind"] == "tool_output")
    assert "net-off" in outputs and "net-on" not in outputs
    # The network command, both outside writes and the escalation asked (and, headless, were
    # refused).
    asked = _asked(events)
    assert len(asked) == 4, asked
    assert "curl" in asked[0] and "network" in asked[0]
    where = str(outside)[:70]  # a summary shortens a long path at its end
    assert where in asked[1] and where in asked[2]
    assert "escalated" in asked[3]
    assert not outside.exists()
    notices = [e["text"] for e in events if e["kind"] == "notice"]
    assert any(n.startswith("auto (sandboxed)") for n in notices)


def test_auto_refuses_to_start_without_bubblewrap(
    isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    empty = tmp_path / "no-tools"
    empty.mkdir()
    proc = run_cli(
        ["run", "--auto", "--provider", "scripted", "--script", str(tmp_path / "none.json"),
         "anything"],
        home=isolated_home,
        cwd=workspace,
        env={"PATH": str(empty)},
    )  # fmt: skip
    assert proc.returncode == 2
    assert "--auto refused" in proc.stderr and "bubblewrap" in proc.stderr
    assert "apt-get install bubblewrap" in proc.stderr
    tasks = isolated_home / "tasks"
    assert not tasks.exists() or not any(tasks.iterdir())


def test_auto_refuses_to_start_with_the_sandbox_off(isolated_home: Path, workspace: Path) -> None:
    proc = run_cli(
        ["run", "--auto", "--sandbox", "off", "--provider", "scripted", "anything"],
        home=isolated_home,
        cwd=workspace,
    )
    assert proc.returncode == 2
    assert "--auto refused" in proc.stderr and "turned off" in proc.stderr


def test_the_auto_setting_turns_auto_mode_on_and_is_refused_without_bubblewrap(
    isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    (isolated_home / "settings").mkdir(parents=True, exist_ok=True)
    settings = {"autoApprove": {"autoSandboxed": True}}
    (isolated_home / "settings" / "settings.json").write_text(json.dumps(settings))
    script = tmp_path / "script.json"
    script.write_text(json.dumps([command("echo fine > out.txt"), DONE]))
    args = ["run", "--provider", "scripted", "--script", str(script), "--json", "go"]
    proc = run_cli(["--sandbox", "workspace-write", *args], home=isolated_home, cwd=workspace)
    assert proc.returncode == 0, proc.stderr
    assert (workspace / "out.txt").read_text() == "fine\n"
    assert _asked(_events(proc.stdout)) == []
    empty = tmp_path / "no-tools"
    empty.mkdir()
    proc = run_cli(args, home=isolated_home, cwd=workspace, env={"PATH": str(empty)})
    assert proc.returncode == 2
    assert "bubblewrap" in proc.stderr


def test_the_interactive_status_line_says_auto_sandboxed(
    isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    from tests.cli.test_interactive import spawn

    script = tmp_path / "script.json"
    script.write_text(json.dumps([command("echo fine > out.txt"), DONE]))
    child = spawn(
        ["--auto", "--sandbox", "workspace-write", "--provider", "scripted", "--script",
         str(script)],
        isolated_home,
        workspace,
    )  # fmt: skip
    child.expect_exact("auto (sandboxed) · ")
    child.expect("Task> ")
    child.sendline("make out.txt")
    # The notice is wrapped at words to the terminal's 200 columns, not cut mid-word by it.
    child.expect(r"beyond\s+loopback\s+ask\.")
    notice = re.sub(r"\x1b\[[0-9;]*m", "", child.before + child.after)
    notice = notice[notice.index("auto (sandboxed): commands") :]
    rows = notice.splitlines()
    assert len(rows) > 1 and all(len(row) < 200 for row in rows), notice
    # Cut only between words: the rows put back together are the notice.
    from pycline.app.settings.auto_mode import NOTICE

    assert " ".join(row.strip() for row in rows) == NOTICE
    child.expect_exact("auto (sandboxed): run unasked")  # no question: the command just runs
    child.expect("Press Enter to accept")
    child.sendline("")
    child.expect("Task> ")
    child.sendline("/exit")
    child.expect(pexpect.EOF)
    child.close()
    assert (workspace / "out.txt").read_text() == "fine\n"
