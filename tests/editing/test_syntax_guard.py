"""An edit that would break a file's syntax is not applied; the model is told where, and for a
SEARCH that held only a function's first line, given the block that rewrites all of it."""

from __future__ import annotations

from pathlib import Path

from pycline.tools.edit import ReplaceInFileTool, WriteToFileTool
from tests.editing.helpers import block
from tests.editing.tooling import FakeApprover, call, make_context

GO = (
    'package textstat\n\nimport "strings"\n\n// IsPalindrome reports whether s reads the same.\n'
    "func IsPalindrome(s string) bool {\n\treturn s == Reverse(s)\n}\n\n"
    "// Words splits s on whitespace.\nfunc Words(s string) []string {\n"
    "\treturn strings.Fields(s)\n}\n"
)
NEW = "func IsPalindrome(s string) bool {\n\ts = strings.ToLower(s)\n\treturn s == Reverse(s)\n}"


async def test_a_first_line_search_that_would_leave_the_old_body_is_refused_with_the_fix(
    workspace: Path,
) -> None:
    # What Qwen2.5-Coder 1.5B sent on a real task, five times: each one, saved, broke the file
    # further.
    (workspace / "textstat.go").write_text(GO)
    approver = FakeApprover()
    ctx = make_context(workspace, approver)
    diff = block("func IsPalindrome(s string) bool {", NEW)
    result = await ReplaceInFileTool().run(
        call("replace_in_file", path="textstat.go", diff=diff), ctx
    )
    assert result.is_error and approver.asked == []  # nobody is asked about a broken file
    assert (workspace / "textstat.go").read_text() == GO
    assert "The edit was not applied: textstat.go parses now, and after it would not" in result.text
    suggested = result.text.split("send this block:\n", 1)[1]
    assert suggested.startswith(
        "------- SEARCH\nfunc IsPalindrome(s string) bool {\n\treturn s == Reverse(s)\n}\n======="
    )
    fixed = await ReplaceInFileTool().run(
        call("replace_in_file", path="textstat.go", diff=suggested), ctx
    )
    assert not fixed.is_error, fixed.text
    assert "strings.ToLower(s)" in (workspace / "textstat.go").read_text()


async def test_files_that_do_not_parse_already_and_new_files_are_saved_as_before(
    workspace: Path,
) -> None:
    ctx = make_context(workspace, FakeApprover())
    (workspace / "broken.py").write_text("def f(:\n    pass\nx = 1\n")
    edit = await ReplaceInFileTool().run(
        call("replace_in_file", path="broken.py", diff=block("x = 1", "x = (")), ctx
    )
    assert not edit.is_error and (workspace / "broken.py").read_text().endswith("x = (\n")
    new = await WriteToFileTool().run(
        call("write_to_file", path="draft.py", content="def g(:\n"), ctx
    )
    assert not new.is_error and (workspace / "draft.py").exists()
    # A whole-file rewrite that breaks a clean file is refused too.
    (workspace / "ok.py").write_text("y = 2\n")
    rewrite = await WriteToFileTool().run(
        call("write_to_file", path="ok.py", content="y = (\n"), ctx
    )
    assert rewrite.is_error and (workspace / "ok.py").read_text() == "y = 2\n"
