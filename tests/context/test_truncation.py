from __future__ import annotations

import itertools

from hypothesis import given
from hypothesis import strategies as st

from pycline.context.truncation import (
    ORPHAN_NOTE,
    PAIR_SAFE_HEAD,
    Keep,
    Range,
    next_truncation_range,
    truncated,
)
from pycline.messages import ImageContent, Message, TextContent


def alternating(n: int) -> list[str]:
    return ["user" if i % 2 == 0 else "assistant" for i in range(n)]


KEEPS = st.sampled_from(["half", "quarter"])


@given(st.integers(min_value=4, max_value=400), st.lists(KEEPS, min_size=1, max_size=8))
def test_pair_safe_ranges_remove_whole_call_result_pairs(n: int, keeps: list[Keep]) -> None:
    roles = alternating(n)
    current: Range | None = None
    for keep in keeps:
        start, end = next_truncation_range(roles, current, keep, head=PAIR_SAFE_HEAD)
        assert start == PAIR_SAFE_HEAD
        if end < start:
            continue  # nothing to remove yet
        # Gap runs from an assistant (a call) to a user message (a result) and keeps the last.
        assert roles[start] == "assistant"
        assert roles[end] == "user"
        assert end + 1 < n and roles[end + 1] == "assistant"
        if current is not None:
            assert end >= current[1]
        current = (start, end)
        kept = roles[:start] + roles[end + 1 :]
        assert all(a != b for a, b in itertools.pairwise(kept))


@given(st.integers(min_value=3, max_value=400), KEEPS)
def test_cline_ranges_end_on_an_assistant_message(n: int, keep: Keep) -> None:
    roles = alternating(n)
    start, end = next_truncation_range(roles, None, keep)
    assert start == 2
    assert end == 1 or roles[end] == "assistant"


def test_range_accepts_messages_as_well_as_roles() -> None:
    messages = [Message(r, (TextContent(r),)) for r in alternating(11)]  # type: ignore[arg-type]
    assert next_truncation_range(messages, None, "half") == (2, 5)


def test_keep_none_and_last_two() -> None:
    roles = alternating(10)
    assert next_truncation_range(roles, None, "none") == (2, 9)
    assert next_truncation_range(roles, None, "lastTwo") == (2, 7)


def test_pair_safe_range_leaves_every_message_unchanged() -> None:
    history = [Message.user("<task>\nt\n</task>")]
    for i in range(1, 12):
        if i % 2:
            history.append(Message.assistant(f"<read_file>\n<path>{i}.py</path>\n</read_file>"))
        else:
            history.append(Message.user(f"[read_file for '{i - 1}.py'] Result:\ncontent {i}"))
    out = truncated(history, (3, 6))
    assert out == history[:3] + history[7:]


def test_result_after_a_removed_call_loses_only_its_result_block() -> None:
    history = [
        Message.user("<task>\nt\n</task>"),
        Message.assistant("first"),
        Message.assistant("<read_file>\n<path>a.png</path>\n</read_file>"),
        Message(
            "user",
            (
                TextContent("[read_file for 'a.png'] Result:\nan image"),
                ImageContent("image/png", "AAAA"),
                TextContent("<environment_details>\nenv\n</environment_details>"),
            ),
        ),
        Message.assistant("next"),
    ]
    out = truncated(history, (2, 2))
    assert out[2] == Message(
        "user", (TextContent("<environment_details>\nenv\n</environment_details>"),)
    )
    assert out[3] == history[4]


def test_a_result_left_empty_gets_a_note() -> None:
    history = [
        Message.user("<task>\nt\n</task>"),
        Message.assistant("first"),
        Message.user("feedback"),
        Message.assistant("<list_files>\n<path>.</path>\n</list_files>"),
        Message.user("[list_files for '.'] Result:\na\nb"),
    ]
    out = truncated(history, (2, 3))
    assert out[2] == Message("user", (TextContent(ORPHAN_NOTE),))


def test_no_range_returns_a_copy() -> None:
    history = [Message.user("a"), Message.assistant("b")]
    out = truncated(history, None)
    assert out == history and out is not history
