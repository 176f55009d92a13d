"""`pycline attach` in a real terminal beside the terminal that runs the task: the attached window
shows live events while its prompt waits, withdraws a prompt answered in the other window with a
line saying where (and so does the other window), and the first Ctrl-C detaches."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.journey_terminal import Terminal
from tests.cli.task_cli import COMPLETE
from tests.cli.test_background import env  # noqa: F401  (a fixture: home and a short runtime dir)
from tests.cli.test_live_tasks import listed

WRITE = "<write_to_file>\n<path>notes.txt</path>\n<content>hi\n</content>\n</write_to_file>"


def test_attach_withdraws_a_prompt_answered_elsewhere_keeps_showing_events_and_detaches_at_once(
    env: dict[str, str],  # noqa: F811
    workspace: Path,
    tmp_path: Path,
    terminals: list[Terminal],
) -> None:
    script = tmp_path / "replies.json"
    script.write_text(json.dumps([WRITE, COMPLETE]), encoding="utf-8")
    home = Path(env["PYCLINE_HOME"])
    runtime = {"XDG_RUNTIME_DIR": env["XDG_RUNTIME_DIR"]}
    flags = ["--provider", "scripted", "--script", str(script)]
    here = Terminal(flags, home=home, cwd=workspace, env=runtime)
    terminals.append(here)
    here.expect_prompt()
    here.type("write the notes")
    here.expect("type feedback")
    entry = listed(env, "waiting")

    there = Terminal(["attach", entry["id"]], home=home, cwd=workspace, env=runtime)
    terminals.append(there)
    there.expect("Approve: write_to_file")
    there.expect("choose \\(number\\) or type a reply: ")

    here.type("y")  # answered in the task's own terminal
    # Nothing typed in the attached window: its prompt goes, saying where it was answered,
    # and what the task does next keeps printing (the result, and its question).
    there.expect("Answered in the terminal")
    there.expect("done")
    there.expect("choose \\(number\\) or type a reply: ")
    assert "No open question" not in there.printed()

    there.type("1")  # the result accepted from the attached window
    here.expect("Answered in pycline attach")
    here.expect_prompt()
    assert (workspace / "notes.txt").read_text(encoding="utf-8") == "hi\n"
    assert there.wait_exit() == 0

    # A second task: attached, then one Ctrl-C at its prompt detaches and leaves it waiting.
    (workspace / "notes.txt").unlink()  # so the model's same write has something to change
    here.type("write them again")
    here.expect("type feedback")
    again = Terminal(["attach", listed(env, "waiting")["id"]], home=home, cwd=workspace,
                     env=runtime)  # fmt: skip
    terminals.append(again)
    again.expect("choose \\(number\\) or type a reply: ")
    again.ctrl_c()
    again.expect("detached")
    assert again.wait_exit(timeout=30) == 0
    assert listed(env, "waiting")["id"]  # the task still waits, in its own terminal
    here.type("n")
    here.expect("Press Enter to accept")
    here.type("")
    here.expect_prompt()
    here.ctrl_d()
    assert here.wait_exit() == 0
