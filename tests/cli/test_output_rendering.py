"""What the terminal shows while a task runs: failure reasons, bounded output, the summary line."""

from __future__ import annotations

import json
from pathlib import Path

import pexpect

from pycline.cli.render import BoundedOutput, failure_reason, shown_result
from tests.cli.task_cli import COMPLETE, command, pycline, script_file
from tests.cli.test_interactive import spawn
from tests.fakes.openai_server import FakeOpenAI
from tests.fakes.server import Stall

READ_MISSING = "<read_file>\n<path>nope.txt</path>\n</read_file>"


def test_headless_output_is_bounded_and_ends_with_a_summary_line(
    isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    script = script_file(tmp_path, [command("seq 1 200"), READ_MISSING, COMPLETE])
    # Without the sandbox: a login profile that writes under $HOME (pyenv's rehash) would add
    # its complaint to the command's output inside it.
    proc = pycline(
        "run", "--provider", "scripted", "--script", str(script), "--yes", "--sandbox", "off",
        "count",
        home=isolated_home, cwd=workspace,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert "40" in lines and "41" not in lines  # the first screenful live …
    assert "… 152 lines not shown …" in lines
    assert lines[lines.index("193") : lines.index("200") + 1] == [str(n) for n in range(193, 201)]
    failed = next(line for line in lines if line.startswith("  failed: "))
    assert "nope.txt" in failed  # the reason, not "the tool execution failed"
    assert lines[-1].endswith("$0.0000") and "3 requests" in lines[-1]


def test_the_waiting_indicator_counts_seconds_until_ctrl_c(
    isolated_home: Path, workspace: Path
) -> None:
    with FakeOpenAI([Stall()]) as server:
        child = spawn(
            ["--provider", "openai", "--base-url", server.base_url, "--api-key", "k",
             "--model", "m", "say hi"],
            isolated_home,
            workspace,
        )  # fmt: skip
        child.expect(r"waiting for the model… (\d+)s")
        first = int(child.match.group(1))
        child.expect(r"waiting for the model… (\d+)s")
        assert int(child.match.group(1)) == first + 1
        child.sendintr()
        child.expect("is saved; your next message continues it")
        child.expect("Task> ")
        child.sendintr()
        child.expect(pexpect.EOF)
        child.close()


def test_failure_reason_is_the_error_not_the_preamble() -> None:
    result = (
        "The tool execution failed with the following error:\n<error>\n"
        "Cannot write to config.lock: the file is read-only.\n</error>"
    )
    assert failure_reason(result) == ["Cannot write to config.lock: the file is read-only."]
    assert failure_reason("The user denied this operation.") == ["The user denied this operation."]
    assert failure_reason("") == ["failed (no reason given)"]


def test_failure_reason_keeps_the_whole_first_paragraph_up_to_a_screenful() -> None:
    quoted = "The SEARCH block:\nVALUE = 3\n...does not match anything in the file."
    result = f"{quoted}\n\nThe file was not changed. Its current content:\n<file_content>"
    assert failure_reason(result) == quoted.splitlines()
    long = "\n".join(f"line {n}" for n in range(20))
    shown = failure_reason(long)
    assert shown[:8] == [f"line {n}" for n in range(8)]
    assert shown[8:] == ["… 12 more lines (the model sees them all)"]


def test_long_results_and_output_are_cut_with_a_count() -> None:
    shown = shown_result("\n".join(f"row {n}" for n in range(30)))
    assert shown[-1] == "… 18 more lines (the model sees them all)" and len(shown) == 13
    output = BoundedOutput()
    live = output.feed("".join(f"{n}\n" for n in range(45)))
    assert live.splitlines() == [str(n) for n in range(40)]
    assert output.finish() == [str(n) for n in range(40, 45)]
    assert output.feed("again\n") == "again\n"  # the next command starts afresh
    assert output.finish() == []


def test_interactive_task_ends_with_a_summary_line(
    isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    script = tmp_path / "s.json"
    script.write_text(json.dumps([COMPLETE]), encoding="utf-8")
    child = spawn(
        ["--provider", "scripted", "--script", str(script), "finish"], isolated_home, workspace
    )
    child.expect("Press Enter to accept")
    child.sendline("")
    child.expect(r"\d+s · 0 files changed · 1 request · ↑[\d,]+ ↓[\d,]+ tokens · \$0\.0000")
    child.expect("Task> ")
    child.sendeof()
    child.expect(pexpect.EOF)
