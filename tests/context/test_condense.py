from __future__ import annotations

from pycline.context.condense import (
    CONDENSE_REQUEST,
    REQUIRED_FILES,
    REREAD_INTRO,
    SUMMARY_INTRO,
    files_to_reread,
    history_from_summary,
    parse_summary,
)
from pycline.context.dedupe import find_duplicate_reads
from pycline.messages import ImageContent, Message, TextContent

SUMMARY = f"""1. Primary Request and Intent:
   Add a --verbose flag.
3. Files and Code Sections:
   - src/old.py: looked at, not needed
7. Current Work: wiring the flag.
{REQUIRED_FILES}:
- `src/app.py`
* tests/test_app.py
not a bullet.py
- src/app.py
+ "docs/usage.md"
- src/app.py"""


def first_message() -> Message:
    return Message(
        "user",
        (
            TextContent("<task>\nAdd a --verbose flag\n</task>"),
            ImageContent("image/png", "AAAA"),
            TextContent("<environment_details>\nold env\n</environment_details>"),
        ),
        ts=1.0,
    )


def test_request_names_every_section_and_the_files_tag() -> None:
    for section in (
        "1. Primary Request and Intent",
        "2. Key Technical Concepts",
        "3. Files and Code Sections",
        "4. Problem Solving",
        "5. Pending Tasks",
        "6. Task Evolution",
        "7. Current Work",
        "8. Next Step",
        "9. Required Files",
    ):
        assert section in CONDENSE_REQUEST
    assert "attempt_completion" in CONDENSE_REQUEST and "<task_progress>" in CONDENSE_REQUEST


def test_summary_is_taken_from_the_tool_parameter() -> None:
    reply = f"<thinking>ok</thinking>\n<summarize_task>\n<context>\n{SUMMARY}\n</context>\n</summarize_task>"
    assert parse_summary(reply) == SUMMARY


def test_summary_falls_back_to_a_summary_tag_then_the_whole_reply() -> None:
    assert parse_summary("x <summary> s </summary> y") == "s"
    assert parse_summary("  just text  ") == "just text"


def test_required_files_are_parsed_in_order_without_repeats() -> None:
    assert files_to_reread(SUMMARY) == ["src/app.py", "tests/test_app.py", "docs/usage.md"]
    assert files_to_reread("no list here\n- a.py") == []


def test_required_files_end_at_the_next_numbered_section() -> None:
    summary = f"{REQUIRED_FILES}:\n- a.py\n10. Extra notes:\n- b.py"
    assert files_to_reread(summary) == ["a.py"]


def test_new_history_keeps_the_task_and_ends_with_the_summary() -> None:
    history = history_from_summary(first_message(), SUMMARY, {"src/app.py": "print('hi')"})
    assert [m.role for m in history] == ["user", "assistant"]
    first = history[0]
    assert first.content[0] == TextContent("<task>\nAdd a --verbose flag\n</task>")
    assert first.content[1] == ImageContent("image/png", "AAAA")
    assert "old env" not in first.text
    assert "<file_content path=\"src/app.py\">\nprint('hi')\n</file_content>" in first.text
    assert first.ts == 1.0
    assert history[1].text == SUMMARY_INTRO + SUMMARY


def test_condensing_twice_does_not_pile_up_old_file_copies() -> None:
    once = history_from_summary(first_message(), SUMMARY, {"a.py": "v1"})
    twice = history_from_summary(once[0], "second summary", {"a.py": "v2"})
    assert "v1" not in twice[0].text
    assert twice[0].text.count(REREAD_INTRO) == 1
    assert "<task>\nAdd a --verbose flag\n</task>" in twice[0].text


def test_without_files_no_reread_block_is_added() -> None:
    history = history_from_summary(first_message(), SUMMARY, {})
    assert REREAD_INTRO not in history[0].text


def test_reread_files_use_the_mention_form_dedupe_understands() -> None:
    history = history_from_summary(first_message(), SUMMARY, {"a.py": "v1"})
    later = Message.user('<file_content path="a.py">\nv2\n</file_content>')
    plan = find_duplicate_reads([*history, later], start=0)
    assert plan.message_indices == [0]
