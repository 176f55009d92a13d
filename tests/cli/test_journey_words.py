"""What a person reads in a real terminal, not what the model reads: their feedback on a diff as
their words (no `<feedback>` tags), counts written as people write them, and a session that says
goodbye however it ends (/exit, Ctrl-D)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.journey_terminal import Terminal
from tests.cli.task_cli import COMPLETE

WRITE = "<write_to_file>\n<path>notes.txt</path>\n<content>hello\n</content>\n</write_to_file>"
BYE = "Bye. Tasks are saved; `pycline resume` continues the last."


def _scripted(tmp_path: Path, replies: list[str]) -> list[str]:
    script = tmp_path / "replies.json"
    script.write_text(json.dumps(replies), encoding="utf-8")
    return ["--provider", "scripted", "--script", str(script)]


def test_feedback_on_a_diff_is_shown_as_the_users_words_and_exit_says_goodbye(
    isolated_home: Path, workspace: Path, tmp_path: Path, terminals: list[Terminal]
) -> None:
    term = Terminal(_scripted(tmp_path, [WRITE, COMPLETE]), home=isolated_home, cwd=workspace)
    terminals.append(term)
    term.expect_prompt()
    term.type("write notes")
    term.expect("type feedback")
    term.type("call it README instead")
    term.expect("Press Enter to accept")
    shown = term.before
    assert "Your feedback: call it README instead" in shown, shown
    assert "<feedback>" not in shown and "</feedback>" not in shown
    term.type("")
    term.expect_prompt()
    term.type("/exit")
    term.expect(BYE)
    assert term.wait_exit() == 0
    assert not (workspace / "notes.txt").exists()


def test_ctrl_d_at_the_task_prompt_says_goodbye(
    isolated_home: Path, workspace: Path, tmp_path: Path, terminals: list[Terminal]
) -> None:
    term = Terminal(_scripted(tmp_path, [COMPLETE]), home=isolated_home, cwd=workspace)
    terminals.append(term)
    term.expect_prompt()
    term.ctrl_d()
    term.expect(BYE)
    assert term.wait_exit() == 0
