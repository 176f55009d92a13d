"""write_to_file and replace_in_file through their Tool interface, on real files."""

from __future__ import annotations

import asyncio
import codecs
import os
import sys
from pathlib import Path

import pytest

from pycline.errors import ToolError
from pycline.tools.base import Approval
from pycline.tools.edit import ReplaceInFileTool, WriteToFileTool
from pycline.tools.services import ToolServices
from tests.editing.helpers import block
from tests.editing.tooling import BlockSecrets, FakeApprover, call, make_context

WRITE = WriteToFileTool()
REPLACE = ReplaceInFileTool()


async def test_write_creates_the_file_and_its_folders(workspace: Path) -> None:
    approver = FakeApprover()
    ctx = make_context(workspace, approver)
    result = await WRITE.run(call("write_to_file", path="src/pkg/a.py", content="x = 1"), ctx)
    assert (workspace / "src/pkg/a.py").read_bytes() == b"x = 1\n"
    assert not result.is_error and not result.denied
    # The call already holds the content: not sent again (it would be, on every request).
    assert "final_file_content" not in result.text
    assert "holds exactly what you wrote" in result.text
    question, category, outside = approver.asked[0]
    assert category == "edit" and not outside
    assert question.tool == "write_to_file"
    assert "+x = 1" in question.preview
    assert question.summary == "write_to_file for 'src/pkg/a.py'"


async def test_a_new_file_named_as_an_existing_one_is_pointed_out(workspace: Path) -> None:
    # Qwen2.5-Coder 1.5B on a real task: `src/numbers.go` created beside the `numbers.go` it had
    # been asked to change.
    (workspace / "numbers.go").write_text("package numbers\n")
    ctx = make_context(workspace, FakeApprover())
    result = await WRITE.run(call("write_to_file", path="src/numbers.go", content="package x"), ctx)
    assert (workspace / "src/numbers.go").exists()
    assert "src/numbers.go is a new file, and numbers.go already exists" in result.text
    # Rewriting an existing file, or a new one with a name of its own: no note.
    again = await WRITE.run(call("write_to_file", path="numbers.go", content="package y"), ctx)
    fresh = await WRITE.run(call("write_to_file", path="other.go", content="package z"), ctx)
    assert "Note:" not in again.text and "Note:" not in fresh.text


async def test_a_write_saved_otherwise_than_written_shows_the_saved_file(workspace: Path) -> None:
    ctx = make_context(workspace, FakeApprover())
    fenced = "```python\nx = 1\n```"  # the fence is the model's slip: it is not saved
    result = await WRITE.run(call("write_to_file", path="a.py", content=fenced), ctx)
    assert (workspace / "a.py").read_bytes() == b"x = 1\n"
    assert '<final_file_content path="a.py">\nx = 1\n</final_file_content>' in result.text


async def test_denied_write_changes_nothing_and_passes_the_feedback(workspace: Path) -> None:
    target = workspace / "a.txt"
    target.write_bytes(b"old\n")
    ctx = make_context(workspace, FakeApprover(Approval(False, "use b.txt instead")))
    result = await WRITE.run(call("write_to_file", path="a.txt", content="new"), ctx)
    assert result.denied
    assert result.text.startswith("The user denied this operation.")
    assert "<feedback>\nuse b.txt instead\n</feedback>" in result.text
    assert target.read_bytes() == b"old\n"


async def test_approval_with_feedback_is_passed_on(workspace: Path) -> None:
    ctx = make_context(workspace, FakeApprover(Approval(True, "thanks, also add tests")))
    result = await WRITE.run(call("write_to_file", path="a.txt", content="new"), ctx)
    assert not result.denied
    assert "also add tests" in result.text


async def test_user_edited_content_is_written_and_reported_as_a_diff(workspace: Path) -> None:
    approver = FakeApprover(Approval(True, edited_content="x = 1\ny = 2\n"))
    result = await WRITE.run(
        call("write_to_file", path="a.py", content="x = 1\n"), make_context(workspace, approver)
    )
    assert (workspace / "a.py").read_text(encoding="utf-8") == "x = 1\ny = 2\n"
    assert "The user edited your proposal" in result.text
    assert "+y = 2" in result.text
    assert "y = 2" in result.text.split("<final_file_content", 1)[1]


async def test_write_keeps_bom_crlf_and_missing_final_newline(workspace: Path) -> None:
    target = workspace / "w.txt"
    target.write_bytes(codecs.BOM_UTF8 + b"one\r\ntwo")
    await WRITE.run(
        call("write_to_file", path="w.txt", content="one\nTWO\nthree"), make_context(workspace)
    )
    assert target.read_bytes() == codecs.BOM_UTF8 + b"one\r\nTWO\r\nthree"


async def test_write_cleans_fences_and_entities_for_other_models(workspace: Path) -> None:
    ctx = make_context(workspace, model_family="gpt")
    content = "```python\nif a &lt; b and c &gt; d:\n    pass\ufffd\n```"
    await WRITE.run(call("write_to_file", path="a.py", content=content), ctx)
    assert (workspace / "a.py").read_text(encoding="utf-8") == "if a < b and c > d:\n    pass\n"


async def test_write_warns_about_placeholder_comments(workspace: Path) -> None:
    (workspace / "a.ts").write_text("function a() {}\nfunction b() {}\n", encoding="utf-8")
    content = "function a() { return 1; }\n// ... rest of the code unchanged ..."
    result = await WRITE.run(
        call("write_to_file", path="a.ts", content=content), make_context(workspace)
    )
    assert "looks truncated" in result.text
    assert "line 2" in result.text


async def test_blocked_path_is_refused(workspace: Path) -> None:
    ctx = make_context(workspace, access=BlockSecrets())
    with pytest.raises(ToolError) as caught:
        await WRITE.run(call("write_to_file", path="secret/key.txt", content="x"), ctx)
    assert ".clineignore" in str(caught.value)
    assert not (workspace / "secret").exists()


async def test_outside_workspace_is_flagged_to_the_approver(
    workspace: Path, tmp_path: Path
) -> None:
    approver = FakeApprover(Approval(False))
    outside = tmp_path / "elsewhere.txt"
    await WRITE.run(
        call("write_to_file", path=str(outside), content="x"), make_context(workspace, approver)
    )
    question, _category, flag = approver.asked[0]
    assert flag and question.outside_workspace
    assert not outside.exists()


async def test_new_files_get_normal_permissions_and_edits_keep_them(workspace: Path) -> None:
    await WRITE.run(
        call("write_to_file", path="new.sh", content="echo hi"), make_context(workspace)
    )
    assert (workspace / "new.sh").stat().st_mode & 0o777 == 0o644
    script = workspace / "run.sh"
    script.write_text("echo a\n", encoding="utf-8")
    os.chmod(script, 0o755)
    await REPLACE.run(
        call("replace_in_file", path="run.sh", diff=block("echo a", "echo b")),
        make_context(workspace),
    )
    assert script.stat().st_mode & 0o777 == 0o755


async def test_replace_applies_blocks_and_returns_the_final_content(workspace: Path) -> None:
    target = workspace / "a.py"
    target.write_text("def f():\n    return 1\n", encoding="utf-8")
    diff = "\n\n" + block("    return 1", "    return 2") + "\n\n"
    result = await REPLACE.run(
        call("replace_in_file", path="a.py", diff=diff), make_context(workspace)
    )
    assert target.read_text(encoding="utf-8") == "def f():\n    return 2\n"
    assert result.text.startswith("The content was saved to a.py.")
    assert "    return 2" in result.text


async def test_replace_on_a_missing_file_says_so(workspace: Path) -> None:
    with pytest.raises(ToolError) as caught:
        await REPLACE.run(
            call("replace_in_file", path="nope.py", diff=block("a", "b")), make_context(workspace)
        )
    assert "does not exist" in str(caught.value)


async def test_failed_replace_leaves_the_file_byte_identical(workspace: Path) -> None:
    target = workspace / "a.txt"
    data = codecs.BOM_UTF8 + b"alpha\r\nbeta\r\ngamma"
    target.write_bytes(data)
    approver = FakeApprover()
    diff = block("alpha", "ALPHA") + "\n" + block("no such line", "x")
    result = await REPLACE.run(
        call("replace_in_file", path="a.txt", diff=diff), make_context(workspace, approver)
    )
    assert result.is_error
    assert "block 2 of 2" in result.text
    assert "does not match anything in the file" in result.text
    assert '<file_content path="a.txt">' in result.text
    assert target.read_bytes() == data
    assert approver.asked == []


async def test_replace_round_trips_encoding_bom_crlf_and_final_newline(workspace: Path) -> None:
    target = workspace / "u.txt"
    target.write_bytes(codecs.BOM_UTF16_LE + "first\r\nsecond\r\nlast".encode("utf-16-le"))
    await REPLACE.run(
        call("replace_in_file", path="u.txt", diff=block("last", "final")), make_context(workspace)
    )
    assert target.read_bytes() == codecs.BOM_UTF16_LE + "first\r\nsecond\r\nfinal".encode(
        "utf-16-le"
    )


async def test_replace_keeps_a_legacy_encoding(workspace: Path) -> None:
    target = workspace / "l.txt"
    target.write_bytes("café\nthé\n".encode("cp1252"))
    await REPLACE.run(
        call("replace_in_file", path="l.txt", diff=block("thé", "thé vert")),
        make_context(workspace),
    )
    assert target.read_bytes() == "café\nthé vert\n".encode("cp1252")


async def test_replace_unescapes_entities_for_other_models_but_not_in_xml(workspace: Path) -> None:
    (workspace / "a.py").write_text("if a > b:\n    pass\n", encoding="utf-8")
    (workspace / "a.xml").write_text("<v>a &gt; b</v>\n", encoding="utf-8")
    ctx = make_context(workspace, model_family="gpt")
    await REPLACE.run(
        call("replace_in_file", path="a.py", diff=block("if a &gt; b:", "if a &gt;= b:")), ctx
    )
    await REPLACE.run(
        call("replace_in_file", path="a.xml", diff=block("<v>a &gt; b</v>", "<v>a &lt; b</v>")), ctx
    )
    assert (workspace / "a.py").read_text(encoding="utf-8") == "if a >= b:\n    pass\n"
    assert (workspace / "a.xml").read_text(encoding="utf-8") == "<v>a &lt; b</v>\n"


async def test_replace_that_changes_nothing_does_not_ask(workspace: Path) -> None:
    (workspace / "a.txt").write_text("same\n", encoding="utf-8")
    approver = FakeApprover()
    result = await REPLACE.run(
        call("replace_in_file", path="a.txt", diff=block("same", "same")),
        make_context(workspace, approver),
    )
    assert "unchanged" in result.text and approver.asked == []


async def test_denied_replace_changes_nothing(workspace: Path) -> None:
    target = workspace / "a.txt"
    target.write_text("one\n", encoding="utf-8")
    ctx = make_context(workspace, FakeApprover(Approval(False, "no")))
    result = await REPLACE.run(call("replace_in_file", path="a.txt", diff=block("one", "two")), ctx)
    assert result.denied and target.read_text(encoding="utf-8") == "one\n"


async def test_new_syntax_errors_are_reported_but_old_ones_are_not(workspace: Path) -> None:
    target = workspace / "m.py"
    target.write_text("def broken(:\n    pass\n\ndef ok():\n    return 1\n", encoding="utf-8")
    diff = block("    return 1", "    return (1")
    result = await REPLACE.run(
        call("replace_in_file", path="m.py", diff=diff), make_context(workspace)
    )
    assert "New problems detected after saving the file:\nm.py" in result.text
    assert "broken" not in result.text.split("New problems", 1)[1]
    clean = await REPLACE.run(
        call("replace_in_file", path="m.py", diff=block("    return (1", "    return 1")),
        make_context(workspace),
    )
    assert "New problems" not in clean.text


async def test_configured_linters_report_new_findings(workspace: Path, tmp_path: Path) -> None:
    script = tmp_path / "lint.py"
    script.write_text(
        "import sys\nfor n, l in enumerate(open(sys.argv[1]), 1):\n"
        "    if 'print(' in l: print(f'{sys.argv[1]}:{n}:1: NP1 no print')\n",
        encoding="utf-8",
    )
    (workspace / "a.py").write_text("x = 1\n", encoding="utf-8")
    ctx = make_context(
        workspace, services=ToolServices(linters={"*.py": (sys.executable, str(script), "{file}")})
    )
    result = await REPLACE.run(
        call("replace_in_file", path="a.py", diff=block("x = 1", "x = 1\nprint(x)")), ctx
    )
    assert f"[{Path(sys.executable).name}] Line 2: NP1 no print" in result.text


async def test_large_files_get_the_changed_parts_not_the_whole_file(workspace: Path) -> None:
    target = workspace / "big.txt"
    target.write_text("".join(f"line {i}\n" for i in range(1000)), encoding="utf-8")
    result = await REPLACE.run(
        call("replace_in_file", path="big.txt", diff=block("line 500", "line five hundred")),
        make_context(workspace),
    )
    assert "+line five hundred" in result.text
    assert "line 10\n" not in result.text
    assert len(result.text) < 2000


def test_summary_names_the_tool_and_path() -> None:
    assert REPLACE.summary(call("replace_in_file", path="src/a.py", diff="x")) == (
        "replace_in_file for 'src/a.py'"
    )
    assert (
        WRITE.summary(call("write_to_file", path="b.md", content="x")) == "write_to_file for 'b.md'"
    )


async def test_a_cancelled_approval_writes_nothing(workspace: Path) -> None:
    from pycline.events import ApprovalQuestion
    from pycline.tools.base import ApprovalCategory

    async def cancel(
        question: ApprovalQuestion, category: ApprovalCategory, *, outside_workspace: bool
    ) -> Approval:
        raise asyncio.CancelledError

    ctx = make_context(workspace)
    ctx.approve = cancel
    with pytest.raises(asyncio.CancelledError):
        await WRITE.run(call("write_to_file", path="a.txt", content="x"), ctx)
    assert not (workspace / "a.txt").exists()


async def test_an_edit_reads_the_file_once_and_checks_it_once_after_approval(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = workspace / "a.py"
    target.write_text("x = 1\n", encoding="utf-8")
    reads: list[Path] = []
    real = Path.read_bytes

    def counted(self: Path) -> bytes:
        reads.append(self)
        return real(self)

    monkeypatch.setattr(Path, "read_bytes", counted)
    await REPLACE.run(
        call("replace_in_file", path="a.py", diff=block("x = 1", "x = 2")), make_context(workspace)
    )
    assert target.read_text(encoding="utf-8") == "x = 2\n"
    assert reads.count(target) == 2  # the edit's own read, then the is-it-unchanged check


async def test_an_edit_that_changes_nothing_points_at_new_lines_left_outside_its_block(
    workspace: Path,
) -> None:
    # Qwen2.5-Coder 1.5B: REPLACE the same as SEARCH, the new line after the end marker.
    (workspace / "s.ts").write_text("export function f(t: string) {\n  return t[0];\n}\n")
    ctx = make_context(workspace, FakeApprover())
    diff = "------- SEARCH\n  return t[0];\n=======\n  return t[0];\n+++++++ REPLACE\n  return t;"
    result = await REPLACE.run(call("replace_in_file", path="s.ts", diff=diff), ctx)
    assert result.text.startswith("The edit leaves s.ts unchanged")
    assert "lines outside any block, which were not used:\n  return t;\n" in result.text
    assert (workspace / "s.ts").read_text() == "export function f(t: string) {\n  return t[0];\n}\n"
    # Nothing outside the block: the plain answer.
    diff = "------- SEARCH\n  return t[0];\n=======\n  return t[0];\n+++++++ REPLACE"
    result = await REPLACE.run(call("replace_in_file", path="s.ts", diff=diff), ctx)
    assert "outside any block" not in result.text
