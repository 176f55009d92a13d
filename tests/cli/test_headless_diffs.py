"""`pycline run --yes` shows the diff of every edit it approved, kept to a screenful or so."""

from __future__ import annotations

from pathlib import Path

from tests.cli.task_cli import COMPLETE, pycline, script_file, write_file


def _replace(path: str, search: str, replace: str) -> str:
    return (
        f"<replace_in_file>\n<path>{path}</path>\n<diff>\n"
        f"------- SEARCH\n{search}\n=======\n{replace}\n+++++++ REPLACE\n"
        "</diff>\n</replace_in_file>"
    )


def test_auto_approved_edits_show_their_diffs_bounded(
    isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    (workspace / "notes.txt").write_text(
        "".join(f"line {i}\n" for i in range(300)), encoding="utf-8"
    )
    big = "".join(f"row {i}\n" for i in range(1000))
    replies = [
        _replace("notes.txt", "line 150", "line one-fifty"),
        write_file("big.txt", big),
        COMPLETE,
    ]
    script = script_file(tmp_path, replies)
    proc = pycline(
        "run", "--provider", "scripted", "--script", str(script), "--yes", "edit",
        home=isolated_home, cwd=workspace,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "-line 150\n+line one-fifty\n" in out
    assert "+++ b/big.txt" in out and "+row 0\n" in out
    assert "+row 999" not in out  # the long one is cut short, and says so
    assert "803 more diff lines not shown" in out
    assert len(out.splitlines()) < 200
