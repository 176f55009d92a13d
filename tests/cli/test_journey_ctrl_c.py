"""Ctrl-C on a task typed at the `Task>` prompt, in a real terminal with the sandbox on: the first
press stops the step and the prompt comes back; what the command printed reaches the model with
the next message; a second press quits."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.journey_terminal import Terminal, model_flags
from tests.cli.task_cli import history
from tests.fakes.openai_server import FakeOpenAI
from tests.fakes.server import Stall

DONE = "<attempt_completion>\n<result>Stopped waiting.</result>\n</attempt_completion>"
# It prints what the pid namespace's first process is: `bwrap` only inside the sandbox.
SLEEP = (
    '<execute_command>\n<command>echo "step-$((40+2)) in $(cat /proc/1/comm)"; sleep 30'
    "</command>\n<requires_approval>false</requires_approval>\n</execute_command>"
)


def test_ctrl_c_stops_a_sandboxed_command_of_a_typed_task_and_the_model_gets_its_output(
    isolated_home: Path, workspace: Path, terminals: list[Terminal]
) -> None:
    with FakeOpenAI([SLEEP, DONE]) as server:
        term = Terminal(model_flags(server), home=isolated_home, cwd=workspace)
        terminals.append(term)
        term.expect_prompt()
        term.type("wait for the build")
        term.expect(r"step-42 in bwrap")  # running, inside the sandbox
        term.ctrl_c()
        # Well before the command's 30 s sleep ends, however loaded the machine is.
        term.expect_prompt(timeout=15)
        assert "is saved; your next message continues it" in term.before
        term.type("why did it stop?")
        term.expect("Press Enter to accept")
        term.type("")
        term.expect_prompt()
        term.ctrl_d()
        assert term.wait_exit() == 0
        sent = json.dumps(server.completions[1].body["messages"])
    interrupted = sent[sent.find("The user interrupted this command") :]
    assert "step-42 in bwrap" in interrupted
    assert "why did it stop?" in sent


def test_ctrl_c_while_waiting_for_the_model_on_a_typed_task_stops_it_and_again_quits(
    isolated_home: Path, workspace: Path, terminals: list[Terminal]
) -> None:
    with FakeOpenAI([Stall(), Stall()]) as server:
        term = Terminal(model_flags(server), home=isolated_home, cwd=workspace)
        terminals.append(term)
        term.expect_prompt()
        term.type("say hi")
        term.expect("waiting for the model")
        term.ctrl_c()
        term.expect_prompt(timeout=15)
        term.type("hello again")
        term.expect("waiting for the model")
        term.ctrl_c()
        term.expect("Ctrl-C again quits")
        term.ctrl_c()  # the second press within two seconds
        term.expect("Bye")
        assert term.wait_exit() == 130


def test_ctrl_c_at_the_completion_prompt_keeps_the_task_completed(
    isolated_home: Path, workspace: Path, terminals: list[Terminal]
) -> None:
    with FakeOpenAI([DONE, DONE]) as server:
        term = Terminal(model_flags(server), home=isolated_home, cwd=workspace)
        terminals.append(term)
        term.expect_prompt()
        term.type("stop waiting")
        term.expect("Press Enter to accept")
        term.ctrl_c()
        term.expect_prompt(timeout=15)
        assert "cancelled" not in term.before.lower(), term.before
        term.type("another thing")  # a new task, not more of the completed one
        term.expect("Press Enter to accept")
        term.type("")
        term.expect_prompt()
        term.ctrl_d()
        assert term.wait_exit() == 0
    records = history(isolated_home)
    assert sorted((r["task"], r["status"]) for r in records) == [
        ("another thing", "completed"),
        ("stop waiting", "completed"),
    ]
