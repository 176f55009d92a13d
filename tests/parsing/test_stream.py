"""The streaming parser's own contract: snapshots, finish(), vocabulary, and linear cost."""

from __future__ import annotations

import sys
from types import FrameType
from typing import Any

from pycline.parsing import stream
from pycline.parsing.blocks import TextBlock, ToolUseBlock
from pycline.parsing.stream import StreamingParser, parse_assistant_message
from pycline.parsing.vocab import PARAM_NAMES, TOOL_NAMES


def _feed(*chunks: str) -> StreamingParser:
    parser = StreamingParser()
    for chunk in chunks:
        parser.feed(chunk)
    return parser


def test_every_spec_tool_and_parameter_is_a_known_tag() -> None:
    spec_tools = {
        "execute_command", "read_file", "write_to_file", "replace_in_file", "search_files",
        "list_files", "list_code_definition_names", "browser_action", "use_mcp_tool",
        "access_mcp_resource", "ask_followup_question", "attempt_completion", "plan_mode_respond",
        "new_task", "web_fetch", "condense", "summarize_task", "load_mcp_documentation",
        "new_rule", "report_bug", "focus_chain", "use_subagents",
    }  # fmt: skip
    spec_params = {
        "command", "requires_approval", "timeout", "path", "content", "diff", "regex",
        "file_pattern", "recursive", "action", "url", "coordinate", "text", "server_name",
        "tool_name", "arguments", "uri", "question", "options", "result", "response",
        "needs_more_exploration", "context", "start_line", "end_line", "prompt", "task_progress",
        "title", "what_happened", "steps_to_reproduce", "api_request_output",
        "additional_context", "prompt_1", "prompt_5",
    }  # fmt: skip
    assert spec_tools <= TOOL_NAMES
    assert spec_params <= PARAM_NAMES


def test_finish_completes_trailing_text_and_an_unclosed_tool() -> None:
    parser = _feed("Done.\n<attempt_completion>\n<result>All good")
    assert parser.blocks[-1].partial
    assert parser.finish() == [
        TextBlock("Done.", partial=False),
        ToolUseBlock("attempt_completion", {"result": "All good"}, partial=False),
    ]
    assert _feed("Just prose. ").finish() == [TextBlock("Just prose.", partial=False)]
    assert _feed().finish() == []


def test_finish_does_not_change_the_live_parse() -> None:
    parser = _feed("text <read_file><path>a")
    before = parser.blocks
    parser.finish()
    assert parser.blocks == before
    parser.feed("b</path></read_file>")
    assert parser.blocks[-1] == ToolUseBlock("read_file", {"path": "ab"}, partial=False)


def test_a_snapshot_is_not_changed_by_later_chunks() -> None:
    parser = _feed("<execute_command>\n<command>ls")
    snapshot = parser.blocks
    parser.feed(" -la</command>\n<requires_approval>false</requires_approval>")
    parser.feed("\n</execute_command>")
    assert snapshot == [ToolUseBlock("execute_command", {"command": "ls"}, partial=True)]
    assert parser.blocks == [
        ToolUseBlock(
            "execute_command", {"command": "ls -la", "requires_approval": "false"}, partial=False
        )
    ]


def test_reading_blocks_repeatedly_is_stable() -> None:
    parser = _feed("Hi <read_file><path> x ")
    assert parser.blocks == parser.blocks == parse_assistant_message("Hi <read_file><path> x ")


def test_write_to_file_content_runs_to_the_last_content_close_across_chunks() -> None:
    inner = "<root>\n" + "<content>x</content>\n" * 50 + "</root>"
    text = f"<write_to_file>\n<path>a.xml</path>\n<content>\n{inner}\n</content>\n</write_to_file>"
    for size in (1, 3, 10, 64):
        parser = _feed(*(text[i : i + size] for i in range(0, len(text), size)))
        assert parser.blocks == [
            ToolUseBlock("write_to_file", {"path": "a.xml", "content": inner}, partial=False)
        ], size


def test_write_to_file_partial_content_stops_at_the_first_content_close_until_the_tool_ends() -> (
    None
):
    parser = _feed('<write_to_file><path>x</path><content>a = "</content>"\n')
    assert parser.blocks[-1] == ToolUseBlock(
        "write_to_file", {"path": "x", "content": 'a = "'}, partial=True
    )
    parser.feed("</content></write_to_file>")
    assert parser.blocks[-1] == ToolUseBlock(
        "write_to_file", {"path": "x", "content": 'a = "</content>"'}, partial=False
    )


def test_repeated_write_to_file_content_is_re_cut_as_cline_does() -> None:
    # Cline quirk kept on purpose: the re-cut spans from the first <content> to the last
    # </content>, so a repeated parameter swallows the tags between the two values.
    text = "<write_to_file><content>a</content><content>b</content></write_to_file>"
    assert parse_assistant_message(text) == [
        ToolUseBlock("write_to_file", {"content": "a</content><content>b"}, partial=False)
    ]


def test_other_tools_keep_the_first_content_close() -> None:
    text = "<new_rule><path>r.md</path><content>a</content>b</content></new_rule>"
    assert parse_assistant_message(text) == [
        ToolUseBlock("new_rule", {"path": "r.md", "content": "a"}, partial=False)
    ]


def test_values_are_trimmed_as_javascript_trims() -> None:
    # U+FEFF is whitespace to JavaScript, U+0085 is not (Python's strip() says the opposite).
    text = "<read_file><path>\ufeff a.txt\u00a0\x85</path></read_file>"
    assert parse_assistant_message(text) == [
        ToolUseBlock("read_file", {"path": "a.txt\u00a0\x85"}, partial=False)
    ]


def test_feeding_costs_work_proportional_to_the_new_text() -> None:
    # Eight times the text: a parser that re-scans on every chunk (as Cline's does) does ~64
    # times the work; ours ~8. Prose full of `>` keeps the scan in Python, where a re-scan
    # shows; the work is counted as lines the parser's module executes (no clock, no load).
    def work(size: int) -> int:
        prose = ("Prose with a -> b and <b>tags</b> in it.\n" * (size // 40 + 1))[:size]
        text = f"{prose}<write_to_file>\n<path>f</path>\n<content>\n{prose}"
        steps = 0

        def tracer(frame: FrameType, event: str, arg: object) -> Any:
            nonlocal steps
            if frame.f_code.co_filename != stream.__file__:
                return None
            if event == "line":
                steps += 1
            return tracer

        parser = StreamingParser()
        sys.settrace(tracer)
        try:
            for i in range(0, len(text), 20):
                parser.feed(text[i : i + 20])
        finally:
            sys.settrace(None)
        return steps

    small, large = work(10_000), work(80_000)
    assert small > 1_000, small  # the count sees the parser at work
    assert large < 24 * small, (small, large)


def test_a_custom_agent_tool_parses_in_any_chunking_and_bad_names_stay_text() -> None:
    reply = (
        "Asking.\n<use_subagent_doc_writer_2>\n<prompt>Find the docs</prompt>\n"
        "</use_subagent_doc_writer_2>"
    )
    expected = [
        TextBlock("Asking.", partial=False),
        ToolUseBlock("use_subagent_doc_writer_2", {"prompt": "Find the docs"}, partial=False),
    ]
    assert parse_assistant_message(reply) == expected
    assert _feed(*reply).blocks == expected  # one character at a time
    for bad in (
        "use_subagent_",
        "use_subagent_Caps",
        "use_subagent_a-b",
        "use_subagent_" + "x" * 41,
    ):
        text = f"<{bad}>\n<prompt>p</prompt>\n</{bad}>"
        assert all(isinstance(b, TextBlock) for b in parse_assistant_message(text)), bad
