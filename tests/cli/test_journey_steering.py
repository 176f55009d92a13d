"""Typing to a task while it works, in a real terminal (the installed command in a pty): a line
typed during a running command is queued, shown, and reaches the very next model request once
the command ends; text typed while the model thinks survives the Ctrl-C that stops the wait."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.journey_terminal import Terminal, model_flags
from tests.fakes.openai_server import FakeOpenAI
from tests.fakes.server import Stall

DONE = "<attempt_completion>\n<result>Tabs now.</result>\n</attempt_completion>"
WAITS = (
    "<execute_command>\n<command>echo waiting-for-go; while [ ! -f go ]; do sleep 0.05; done; "
    "echo finished-$((40+2))</command>\n<requires_approval>false</requires_approval>\n"
    "</execute_command>"
)


def test_a_line_typed_during_a_command_is_queued_and_sent_with_the_next_request(
    isolated_home: Path, workspace: Path, terminals: list[Terminal]
) -> None:
    with FakeOpenAI([WAITS, DONE]) as server:
        term = Terminal(model_flags(server), home=isolated_home, cwd=workspace)
        terminals.append(term)
        term.expect_prompt()
        term.type("format the code")
        term.expect("waiting-for-go")
        term.type("use tabs")
        term.expect(r"queued, sent after the running step")
        term.expect(r"1\. use tabs")
        term.type("and delete the build")
        term.expect(r"2\. and delete the build")
        term.type("/queue drop 2")
        term.expect(r"/queue drop 2")
        term.expect(r"1\. use tabs")
        term.type("/queue edit 1 use tabs, not spaces")
        term.expect(r"1\. use tabs, not spaces")
        assert len(server.completions) == 1  # nothing reaches the model while the command runs
        (workspace / "go").write_text("", encoding="utf-8")
        term.expect(r"› sent: use tabs, not spaces")
        assert "sent: and delete" not in term.before
        term.expect("Press Enter to accept")
        term.type("")
        term.expect_prompt()
        term.ctrl_d()
        assert term.wait_exit() == 0
        sent = json.dumps(server.completions[1].body["messages"][-1])
    assert "finished-42" in sent and "use tabs, not spaces" in sent
    assert sent.index("finished-42") < sent.index("use tabs, not spaces")
    assert "delete the build" not in json.dumps(server.completions[1].body["messages"])


def test_text_typed_while_the_model_thinks_survives_ctrl_c_and_continues_the_task(
    isolated_home: Path, workspace: Path, terminals: list[Terminal]
) -> None:
    with FakeOpenAI([Stall(), DONE]) as server:
        term = Terminal(model_flags(server), home=isolated_home, cwd=workspace)
        terminals.append(term)
        term.expect_prompt()
        term.type("say hi")
        term.expect("waiting for the model")
        term.type("use tabs")
        term.expect(r"1\. use tabs")
        term.press("and tests")  # typed, not yet sent
        term.ctrl_c()
        term.expect("Enter sends it")
        # The queued message, then what was typed and not sent: Ctrl-C did not throw it away.
        term._until(lambda: term.cursor_line() == "Task> use tabsand tests", "the typed text", 10)
        term.press("\r")
        term.expect("Press Enter to accept")
        term.type("")
        term.expect_prompt()
        term.ctrl_d()
        assert term.wait_exit() == 0
        sent = json.dumps(server.completions[1].body["messages"])
    assert "use tabs" in sent and "and tests" in sent
