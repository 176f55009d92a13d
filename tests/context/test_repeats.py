"""A reply repeated word for word is sent once, with its latest result; anything else stays."""

from __future__ import annotations

from pycline.context.repeats import without_repeats
from pycline.messages import ImageContent, Message, TextContent, ToolUseContent

TASK = Message.user("<task>\nfix a.py\n</task>")
CALL = Message.assistant("<read_file>\n<path>nope.py</path>\n</read_file>")
OTHER = Message.assistant("<read_file>\n<path>a.py</path>\n</read_file>")


def result(text: str = "The tool execution failed") -> Message:
    return Message.user(f"[read_file for 'nope.py'] Result:\n{text}")


def test_a_run_of_identical_replies_leaves_only_its_last_copy_and_result() -> None:
    last = result("failed (3 times in a row)")
    history = [TASK, CALL, result(), CALL, result(), CALL, last]
    assert without_repeats(history) == [TASK, CALL, last]
    # A different reply in between ends the run: both runs are kept apart.
    history = [TASK, CALL, result(), OTHER, result(), CALL, last]
    assert without_repeats(history) == history


def test_a_result_with_the_users_words_or_an_image_keeps_its_call() -> None:
    feedback = Message(
        "user", (TextContent("[read_file for 'nope.py'] Result:\nx"), TextContent("try b.py"))
    )
    pictured = Message("user", (*result().content, ImageContent("image/png", "AAAA")))
    for kept in (feedback, pictured, Message.user("please go on")):
        history = [TASK, CALL, kept, CALL, result()]
        assert without_repeats(history) == history


def test_native_calls_are_the_same_reply_whatever_their_ids() -> None:
    def native(call_id: str) -> tuple[Message, Message]:
        call = Message("assistant", (ToolUseContent(call_id, "read_file", (("path", "x"),)),))
        return call, Message("user", (TextContent("error", tool_use_id=call_id),))

    first, second = native("a"), native("b")
    assert without_repeats([TASK, *first, *second]) == [TASK, *second]
    mixed = Message("user", (TextContent("error", tool_use_id="a"), TextContent("note")))
    assert without_repeats([TASK, first[0], mixed, *second]) == [TASK, first[0], mixed, *second]
