"""A new user's first session, as they meet it: the installed `pycline` in an 80-column terminal,
nothing configured (the set-up asks for a local OpenAI-compatible server and lists its models),
no browser on the machine, then a first task typed at the prompt whose writes are approved,
rejected with feedback and edited first."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tests.cli.journey_terminal import Terminal
from tests.fakes.openai_server import FakeOpenAI


def _write(path: str, text: str) -> str:
    return f"<write_to_file>\n<path>{path}</path>\n<content>\n{text}\n</content>\n</write_to_file>"


DONE = "<attempt_completion>\n<result>Greeted.</result>\n</attempt_completion>"


def test_first_run_sets_up_a_local_server_and_the_first_screen_fits_80_columns(
    isolated_home: Path, workspace: Path, tmp_path: Path, terminals: list[Terminal]
) -> None:
    editor = tmp_path / "editor.py"
    editor.write_text(
        "import sys, pathlib\np = pathlib.Path(sys.argv[1])\n"
        "p.write_text(p.read_text().replace('hi', 'hi from the user'))\n",
        encoding="utf-8",
    )
    replies = [_write("hello.txt", "hello"), _write("bye.txt", "bye"), _write("hi.txt", "hi"), DONE]
    with FakeOpenAI(replies, models=("demo-model",)) as server:
        term = Terminal(
            [],
            home=isolated_home,
            cwd=workspace,
            env={"PYCLINE_CHROMIUM": str(tmp_path / "no-browser"),
                 "EDITOR": f"{sys.executable} {editor}", "VISUAL": ""},
            columns=80,
        )  # fmt: skip
        terminals.append(term)
        term.expect(r"Provider \(1-\d+ or a name\)")
        term.type("5")  # another OpenAI-compatible server
        term.expect("Server URL")
        term.type(server.base_url)
        term.expect("1. demo-model")
        term.expect(r"Model \(")
        term.type("")
        term.expect_prompt()
        shown = term.text().splitlines()
        rows = shown[next(i for i, row in enumerate(shown) if row.startswith("pycline · ")) :]
        notices = [row for row in rows if "browser tool off" in row]
        assert len(notices) == 1, rows  # said once
        assert "`pycline doctor`" in notices[0], rows  # on one row: not wrapped
        assert all(len(row) < 80 for row in rows), [r for r in rows if len(r) >= 80]
        assert any(row.endswith("rewinds to a checkpoint.") for row in rows), rows

        term.type("greet everyone")
        term.expect(r"\+hello")  # the diff, before the question
        term.expect(r"Allow write_to_file for 'hello.txt'\?")
        term.type("y")
        term.expect(r"Allow write_to_file for 'bye.txt'\?")
        term.type("no goodbyes please")
        # The next question's prompt, not the last one's text: a line typed before it is asked
        # is a message queued for the task's next turn, not this answer.
        term.expect(r"Allow write_to_file for 'hi.txt'\?")
        term.type("e")
        term.expect("Press Enter to accept")
        term.type("")
        term.expect_prompt()
        term.ctrl_d()
        assert term.wait_exit() == 0
        sent = json.dumps(server.completions[-1].body["messages"])
    assert (workspace / "hello.txt").read_text(encoding="utf-8") == "hello\n"
    assert not (workspace / "bye.txt").exists()
    assert (workspace / "hi.txt").read_text(encoding="utf-8") == "hi from the user\n"
    assert "no goodbyes please" in sent
    assert "The user edited your proposal" in sent
    saved = json.loads((isolated_home / "settings" / "settings.json").read_text(encoding="utf-8"))
    assert json.dumps(saved).count("demo-model") >= 1
