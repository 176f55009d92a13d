"""Near-miss tool calls through the task loop: read the way they were plainly meant, with the
exact correction told to the model in the call's result; anything ambiguous is left to the
tool's own checks, and a fenced or half-written edit never reaches a file as such."""

from __future__ import annotations

import json
from pathlib import Path

from pycline.core.approval import AutoApprove
from pycline.core.task import TaskSettings
from pycline.messages import TextContent
from pycline.parsing.blocks import ToolUseBlock
from pycline.parsing.near_miss import json_call, repair_params, unfence
from tests.core.harness import RecordingHost, complete, make_task

EDITS = TaskSettings(auto_approve=AutoApprove(edit_files=True))


def result_text(provider: object, request: int) -> str:
    messages = provider.requests[request].messages  # type: ignore[attr-defined]
    return "".join(c.text for c in messages[-1].content if isinstance(c, TextContent))


async def test_a_json_call_with_a_fenced_content_writes_the_plain_file(
    isolated_home: Path, workspace: Path
) -> None:
    arguments = {"path": "a.py", "content": "```python\nprint(1)\n```"}
    call = f"I'll write it.\n<tool_call>\n{json.dumps({'name': 'write_to_file', 'arguments': arguments})}\n</tool_call>"
    task, provider = make_task(
        isolated_home, workspace, [call, complete()], RecordingHost(), settings=EDITS
    )
    assert (await task.start("write a.py")).completed
    assert (workspace / "a.py").read_text().strip() == "print(1)"
    told = result_text(provider, 1)
    assert "written as JSON" in told and "<write_to_file>" in told and "code fence" in told


async def test_a_parameter_under_an_alias_is_read_as_meant_and_corrected(
    isolated_home: Path, workspace: Path
) -> None:
    (workspace / "notes.txt").write_text("alpha\n")
    call = "<read_file>\n<file_path>notes.txt</file_path>\n"  # nor is the tag closed
    task, provider = make_task(isolated_home, workspace, [call, complete()], RecordingHost())
    assert (await task.start("read notes")).completed
    told = result_text(provider, 1)
    assert "alpha" in told
    assert "no parameter <file_path>; it was read as <path>" in told
    assert "no closing </read_file> tag" in told


def test_only_unambiguous_slips_are_repaired() -> None:
    # Two aliases of `path`: which one was meant is not plain, so nothing is guessed.
    block = ToolUseBlock("read_file", {}, partial=False)
    text = "<read_file><file>a.py</file><filename>b.py</filename></read_file>"
    assert repair_params(block, text, ["path"]).block.params == {}
    # A given parameter is never overwritten by an alias.
    block = ToolUseBlock("read_file", {"path": "a.py"}, partial=False)
    text = "<read_file><path>a.py</path><file>b.py</file></read_file>"
    fixed = repair_params(block, text, ["path"])
    assert fixed.block.params == {"path": "a.py"} and fixed.corrections == []
    # JSON naming a tool that is not offered is not a call.
    assert (
        json_call('<tool_call>{"name": "rm_rf", "arguments": {}}</tool_call>', ["read_file"])
        is None
    )
    # A Markdown file may start and end with a fence; code with fences inside is left alone.
    assert unfence("```sh\nls\n```", "README.md") == ("```sh\nls\n```", False)
    assert unfence("```\na\n```\nb\n```\nc\n```", "x.py")[1] is False
    assert unfence("```go\npackage main\n```", "main.go") == ("package main", True)


async def test_a_call_in_a_code_fence_is_one_call(isolated_home: Path, workspace: Path) -> None:
    (workspace / "notes.txt").write_text("alpha\n")
    call = "```xml\n<read_file>\n<path>notes.txt</path>\n</read_file>\n```"
    task, provider = make_task(isolated_home, workspace, [call, complete()], RecordingHost())
    assert (await task.start("read notes")).completed
    told = result_text(provider, 1)
    assert "alpha" in told and "Only one tool" not in told


async def test_a_bare_value_in_a_one_parameter_call_is_read_as_that_parameter(
    isolated_home: Path, workspace: Path
) -> None:
    # What Qwen2.5-Coder 1.5B wrote on a real task, three times running, before this repair.
    (workspace / "notes.txt").write_text("alpha\n")
    call = f"<read_file>\n{workspace / 'notes.txt'}\n</read_file>"
    task, provider = make_task(isolated_home, workspace, [call, complete()], RecordingHost())
    assert (await task.start("read notes")).completed
    told = result_text(provider, 1)
    assert "alpha" in told
    assert "no parameter tag; it was read as <path>" in told
    assert "Put every parameter in its own tag" in told


async def test_a_bare_path_before_an_edits_diff_is_read_as_its_path(
    isolated_home: Path, workspace: Path
) -> None:
    (workspace / "numbers.go").write_text("func Clamp() int {\n\treturn hi\n}\n")
    call = (
        "<replace_in_file>\nnumbers.go\n<diff>\n------- SEARCH\n\treturn hi\n=======\n"
        "\treturn lo\n+++++++ REPLACE\n</diff>\n</replace_in_file>"
    )
    task, provider = make_task(
        isolated_home, workspace, [call, complete()], RecordingHost(), settings=EDITS
    )
    assert (await task.start("fix Clamp")).completed
    assert (workspace / "numbers.go").read_text() == "func Clamp() int {\n\treturn lo\n}\n"
    assert "<path>numbers.go</path>" in result_text(provider, 1)


def test_a_bare_value_is_read_only_where_one_reading_exists() -> None:
    empty = ToolUseBlock("search_files", {}, partial=False)
    # Two required parameters: which one the value is meant for is not plain.
    text = "<search_files>\nTODO\n</search_files>"
    assert repair_params(empty, text, ["path", "regex"], ["path", "regex"]).block.params == {}
    # A path of two lines is not one path.
    read = ToolUseBlock("read_file", {}, partial=False)
    text = "<read_file>\na.py\nb.py\n</read_file>"
    assert repair_params(read, text, ["path"], ["path"]).block.params == {}
    # Tags of another kind inside: not a bare value (the alias rule or the tool answers it).
    text = "<read_file>\n<paths>a.py</paths>\n</read_file>"
    assert repair_params(read, text, ["path"], ["path"]).block.params == {}
    # Content with markup in it is not taken for a bare value.
    write = ToolUseBlock("write_to_file", {"path": "a.ts"}, partial=False)
    text = "<write_to_file>\n<path>a.ts</path>\nconst x: Array<number> = [];\n</write_to_file>"
    assert repair_params(write, text, ["path", "content"], ["path", "content"]).corrections == []
    # A result may span lines.
    done = ToolUseBlock("attempt_completion", {}, partial=False)
    text = "<attempt_completion>\nFixed it.\nAll tests pass.\n</attempt_completion>"
    fixed = repair_params(done, text, ["result", "command"], ["result"])
    assert fixed.block.params == {"result": "Fixed it.\nAll tests pass."}
