"""Ctrl-C in the interactive session: the first press stops the step and returns to the prompt
with the task saved; a second press within two seconds, or one at the task prompt, quits."""

from __future__ import annotations

import json
from pathlib import Path

import pexpect

from pycline.cli.interrupts import Interrupts
from pycline.commands import Cancel, Command
from tests.cli.test_interactive import WRITE, spawn
from tests.fakes.openai_server import FakeOpenAI
from tests.fakes.server import Stall

LONG_COMMAND = (
    "<execute_command>\n<command>echo started; sleep 60</command>\n"
    "<requires_approval>false</requires_approval>\n</execute_command>"
)


def _status(home: Path) -> list[str]:
    folders = [p for p in (home / "tasks").iterdir() if p.is_dir()]
    return [
        json.loads((f / "task_metadata.json").read_text(encoding="utf-8"))["record"]["status"]
        for f in folders
    ]


def _scripted(home: Path, cwd: Path, tmp_path: Path, replies: list[str]) -> pexpect.spawn:
    script = tmp_path / "s.json"
    script.write_text(json.dumps(replies), encoding="utf-8")
    return spawn(["--provider", "scripted", "--script", str(script)], home, cwd)


def _quit_at_prompt(child: pexpect.spawn) -> None:
    child.expect("Task> ")
    child.sendintr()  # at the task prompt: quits
    child.expect("Bye")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 130


def test_ctrl_c_at_an_approval_stops_the_task_and_returns_to_the_prompt(
    isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    child = _scripted(isolated_home, workspace, tmp_path, [WRITE])
    child.expect("Task> ")
    child.sendline("make hello")
    child.expect(r"Allow write_to_file")
    child.sendintr()
    child.expect("Task cancelled.\r?\n.*Task .* is saved; your next message continues it")
    _quit_at_prompt(child)
    assert _status(isolated_home) == ["cancelled"]
    assert not (workspace / "hello.txt").exists()


def test_ctrl_c_during_a_command_stops_it_and_keeps_the_session(
    isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    child = _scripted(isolated_home, workspace, tmp_path, [LONG_COMMAND])
    child.expect("Task> ")
    child.sendline("run it")
    child.expect("started")
    child.sendintr()
    child.expect("Task cancelled.\r?\n.*Task .* is saved")
    _quit_at_prompt(child)
    assert _status(isolated_home) == ["cancelled"]


def test_ctrl_c_while_waiting_for_the_model_then_again_quits(
    isolated_home: Path, workspace: Path
) -> None:
    with FakeOpenAI([Stall()]) as server:
        child = spawn(
            ["--provider", "openai", "--base-url", server.base_url, "--api-key", "k",
             "--model", "m", "say hi"],
            isolated_home,
            workspace,
        )  # fmt: skip
        child.expect("waiting for the model")
        child.sendintr()
        child.expect("Ctrl-C again quits")
        child.sendintr()  # the second press within two seconds
        child.expect("Bye")
        child.expect(pexpect.EOF)
        child.close()
    assert child.exitstatus == 130


class _FakeHandle:
    def __init__(self) -> None:
        self.cancelled = 0
        self.done = False

    def post(self, command: Command) -> None:
        if isinstance(command, Cancel):
            self.cancelled += 1


def test_a_second_press_within_two_seconds_quits_later_ones_stop_again() -> None:
    now = [100.0]
    quits: list[bool] = []
    interrupts = Interrupts(lambda: quits.append(True), clock=lambda: now[0])
    handle = _FakeHandle()
    interrupts.handle = handle  # type: ignore[assignment]
    interrupts.press()
    assert handle.cancelled == 1 and quits == []
    now[0] += 1.5
    interrupts.press()
    assert quits == [True]
    now[0] += 5
    quits.clear()
    interrupts.press()
    assert handle.cancelled == 2 and quits == []
    interrupts.handle = None
    interrupts.press()  # nothing running: at the prompt, Ctrl-C quits
    assert quits == [True]


def test_a_press_soon_after_in_a_new_step_stops_that_step() -> None:
    now = [100.0]
    quits: list[bool] = []
    interrupts = Interrupts(lambda: quits.append(True), clock=lambda: now[0])
    first, second = _FakeHandle(), _FakeHandle()
    interrupts.start(first)  # type: ignore[arg-type]
    interrupts.press()
    now[0] += 1.0  # back at the prompt, the user sends the next message at once
    interrupts.start(second)  # type: ignore[arg-type]
    interrupts.press()
    assert (first.cancelled, second.cancelled, quits) == (1, 1, [])


def test_an_interrupted_commands_output_reaches_the_model_with_the_next_message(
    isolated_home: Path, workspace: Path
) -> None:
    done = "<attempt_completion>\n<result>ok</result>\n</attempt_completion>"
    # Its output ("one-42") is not in the command line the terminal shows before it runs.
    slow = LONG_COMMAND.replace("echo started", "echo one-$((40+2))")
    with FakeOpenAI([slow, done]) as server:
        child = spawn(
            ["--provider", "openai", "--base-url", server.base_url, "--api-key", "k",
             "--model", "m", "run it"],
            isolated_home,
            workspace,
        )  # fmt: skip
        child.expect("one-42")
        child.sendintr()
        child.expect("Task cancelled.\r?\n.*Task .* is saved; your next message continues it")
        child.expect("Task> ")
        child.sendline("why so slow?")
        child.expect("Press Enter to accept")
        child.sendline("")
        _quit_at_prompt(child)
        sent = json.dumps(server.completions[1].body["messages"])
    result = sent[sent.find("The user interrupted this command") :]
    assert "one-42" in result[: result.find("[TASK RESUMPTION]")]
    assert "why so slow?" in sent
    assert "result is unknown" not in sent
    assert len(_status(isolated_home)) == 1  # the same task went on
