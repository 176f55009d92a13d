"""What the terminal shows, read off the screen of a real terminal with typed tasks: a failed
tool's whole reason, a plan once, the folder's tasks under headers."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.journey_terminal import Terminal
from tests.cli.task_cli import COMPLETE, pycline, run_task

EDIT_THAT_MISSES = (
    "<replace_in_file>\n<path>app.py</path>\n<diff>\n------- SEARCH\nVALUE = 3\n=======\n"
    "VALUE = 4\n+++++++ REPLACE\n</diff>\n</replace_in_file>"
)
PLAN = (
    "I read the code.\n<plan_mode_respond>\n<response>First, add the parser.\n"
    "Then, wire it in.</response>\n</plan_mode_respond>"
)


def _scripted(tmp_path: Path, replies: list[str]) -> list[str]:
    script = tmp_path / "replies.json"
    script.write_text(json.dumps(replies), encoding="utf-8")
    return ["--provider", "scripted", "--script", str(script)]


def test_a_failed_edit_shows_why_not_just_its_first_line(
    isolated_home: Path, workspace: Path, tmp_path: Path, terminals: list[Terminal]
) -> None:
    (workspace / "app.py").write_text("VALUE = 1\n", encoding="utf-8")
    term = Terminal(_scripted(tmp_path, [EDIT_THAT_MISSES, COMPLETE]), home=isolated_home,
                    cwd=workspace)  # fmt: skip
    terminals.append(term)
    term.expect_prompt()
    term.type("set VALUE to 4")
    term.expect("Press Enter to accept")
    shown = term.before
    failed = shown[shown.index("✗") :]
    assert "The SEARCH block:" in failed
    assert "VALUE = 3" in failed
    assert "does not match anything in the file" in failed
    assert "<file_content" not in failed  # the file itself is for the model, not the screen


def test_a_plan_is_shown_once(
    isolated_home: Path, workspace: Path, tmp_path: Path, terminals: list[Terminal]
) -> None:
    term = Terminal(["--plan", *_scripted(tmp_path, [PLAN])], home=isolated_home, cwd=workspace)
    terminals.append(term)
    term.expect_prompt("Plan>")
    term.type("plan the parser")
    term.expect("Reply to the plan")
    assert term.before.count("First, add the parser.") == 1
    assert term.text().count("First, add the parser.") == 1


def test_history_has_column_headers_and_each_tasks_folder(
    isolated_home: Path, tmp_path: Path
) -> None:
    here = tmp_path / "here"
    here.mkdir()
    run_task(isolated_home, here, [COMPLETE], text="tidy the notes", script_dir=tmp_path)
    proc = pycline("history", home=isolated_home, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    header, row = proc.stdout.splitlines()[:2]
    for column in ("ID", "WHEN", "STATUS", "COST", "FOLDER", "TASK"):
        assert column in header
    assert row[header.index("FOLDER") :].split()[0].endswith("/here")  # under its header
    assert row[header.index("TASK") :] == "tidy the notes"


def _write(path: str) -> str:
    return f"<write_to_file>\n<path>{path}</path>\n<content>\n{path}\n</content>\n</write_to_file>"


def test_undo_right_after_a_rewind_steps_back_once_more_then_says_nothing_is_left(
    isolated_home: Path, workspace: Path, tmp_path: Path, terminals: list[Terminal]
) -> None:
    replies = [_write("one.txt"), _write("two.txt"), COMPLETE]
    term = Terminal(["--yes", *_scripted(tmp_path, replies)], home=isolated_home, cwd=workspace)
    terminals.append(term)
    term.expect_prompt()
    term.type("write two files")
    term.expect("Press Enter to accept")
    term.type("")
    term.expect_prompt()
    term.press("\x1b\x1b")  # Esc, Esc
    term.expect(r"(\d+)\. \S+  after write_to_file one\.txt")
    assert term.match is not None
    number = term.match.group(1)
    term.expect("Checkpoint number")
    term.type(number)
    term.expect_prompt()
    assert sorted(p.name for p in workspace.iterdir()) == ["one.txt"]
    term.type("/undo")
    term.expect_prompt()
    assert "no place in the conversation" not in term.before
    assert sorted(p.name for p in workspace.iterdir()) == []
    term.type("/undo")
    term.expect_prompt()
    assert "Nothing to undo" in term.before
