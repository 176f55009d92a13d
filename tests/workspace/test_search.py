"""`search_files` through ripgrep: grouping, context, cap, globs, errors, hidden files."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from pycline.errors import ToolError
from pycline.tools.base import ToolCall
from pycline.tools.search import SearchFilesTool
from pycline.workspace.ignore import IgnoreRules
from pycline.workspace.ripgrep import ripgrep_path
from pycline.workspace.search import format_results, run_search

from .helpers import make_ctx, write


def test_bundled_ripgrep_runs() -> None:
    out = subprocess.run([ripgrep_path(), "--version"], capture_output=True, text=True, check=True)
    assert out.stdout.startswith("ripgrep ")


async def search(root: Path, regex: str, **kwargs: object) -> str:
    ctx, _ = make_ctx(root, access=IgnoreRules.load(root))
    params = {"path": ".", "regex": regex, **{k: str(v) for k, v in kwargs.items()}}
    result = await SearchFilesTool().run(ToolCall("search_files", params), ctx)
    return result.text


async def test_results_are_grouped_per_file_with_line_numbers_and_context(workspace: Path) -> None:
    write(
        workspace, "a.py", "import os\n\ndef alpha():\n    return 1\n\n\n\ndef beta():\n    pass\n"
    )
    write(workspace, "b.py", "x = 1\n")
    text = await search(workspace, r"def \w+")
    assert text == (
        "Found 2 results.\n"
        "\n"
        "a.py\n"
        "│----\n"
        "│2-\n"
        "│3:def alpha():\n"
        "│4-    return 1\n"
        "│----\n"
        "│7-\n"
        "│8:def beta():\n"
        "│9-    pass\n"
        "│----\n"
    )


async def test_file_pattern_limits_the_files(workspace: Path) -> None:
    write(workspace, "a.py", "needle\n")
    write(workspace, "src/b.ts", "needle\n")
    text = await search(workspace, "needle", file_pattern="*.ts")
    assert "src/b.ts" in text and "a.py" not in text


async def test_gitignored_and_heavy_folders_are_not_searched(workspace: Path) -> None:
    write(workspace, ".gitignore", "build/\n")
    write(workspace, "build/out.js", "needle\n")
    write(workspace, "node_modules/lib/index.js", "needle\n")
    write(workspace, ".hidden/conf", "needle\n")
    text = await search(workspace, "needle")
    assert "build/out.js" not in text and "node_modules" not in text
    assert ".hidden/conf" in text  # hidden files are searched


async def test_results_are_capped_with_a_note(workspace: Path) -> None:
    write(workspace, "many.txt", "hit\n" * 400)
    text = await search(workspace, "hit")
    assert text.startswith("Showing first 300 of 300+ results.")
    assert text.count(":hit") == 300


async def test_no_results(workspace: Path) -> None:
    write(workspace, "a.txt", "nothing here\n")
    assert (await search(workspace, "absent")).startswith("Found 0 results.")


async def test_invalid_regex_is_a_tool_error_with_ripgreps_message(workspace: Path) -> None:
    write(workspace, "a.txt", "x\n")
    with pytest.raises(ToolError, match="unclosed group"):
        await search(workspace, "foo(")


async def test_rust_regex_syntax(workspace: Path) -> None:
    write(workspace, "a.txt", "item42\n")
    assert "│1:item42" in await search(workspace, r"item\d{2}\b")


async def test_long_lines_are_clipped_around_the_match(workspace: Path) -> None:
    write(workspace, "min.js", "a" * 5000 + "NEEDLE" + "b" * 5000 + "\n")
    text = await search(workspace, "NEEDLE")
    line = next(ln for ln in text.splitlines() if ln.startswith("│1:"))
    assert "NEEDLE" in line and len(line) < 700


async def test_clineignored_files_are_never_searched(workspace: Path) -> None:
    write(workspace, ".clineignore", "*.secret\nprivate/\n")
    write(workspace, "a.secret", "password=hunter2\n")
    write(workspace, "private/notes.md", "password=hunter2\n")
    write(workspace, "public.md", "password=changeme\n")
    text = await search(workspace, "password")
    assert "hunter2" not in text and "a.secret" not in text and "private" not in text
    assert "public.md" in text


async def test_output_filter_holds_even_when_gitignore_reincludes(workspace: Path) -> None:
    # ripgrep ranks .gitignore above --ignore-file, so a `!` rule there could re-include a file;
    # the output filter still hides it.
    write(workspace, ".clineignore", "*.secret\n")
    write(workspace, ".gitignore", "!*.secret\n")
    write(workspace, "a.secret", "token=abc\n")
    ctx, _ = make_ctx(workspace, access=IgnoreRules.load(workspace))
    outcome = await run_search(workspace, workspace, "token", access=ctx.access)
    assert "abc" not in format_results(outcome)


async def test_searching_a_blocked_path_is_refused(workspace: Path) -> None:
    write(workspace, ".clineignore", "private/\n")
    write(workspace, "private/x.md", "y\n")
    ctx, _ = make_ctx(workspace, access=IgnoreRules.load(workspace))
    with pytest.raises(ToolError, match=r"\.clineignore"):
        await SearchFilesTool().run(
            ToolCall("search_files", {"path": "private", "regex": "y"}), ctx
        )


async def test_search_summary_and_approval_category(workspace: Path) -> None:
    write(workspace, "a.txt", "x\n")
    ctx, rec = make_ctx(workspace)
    call = ToolCall("search_files", {"path": ".", "regex": "x"})
    await SearchFilesTool().run(call, ctx)
    assert SearchFilesTool().summary(call) == "search_files for 'x'"
    assert rec.questions[0][1] == "read"


async def test_search_outside_workspace_shows_absolute_paths(
    workspace: Path, tmp_path: Path
) -> None:
    other = write(tmp_path, "other/z.txt", "zed\n")
    ctx, rec = make_ctx(workspace)
    result = await SearchFilesTool().run(
        ToolCall("search_files", {"path": "../other", "regex": "zed"}), ctx
    )
    assert str(other) in result.text
    assert rec.questions[0][2] is True
