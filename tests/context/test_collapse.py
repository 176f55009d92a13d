from __future__ import annotations

from pycline.context.collapse import digest
from pycline.context.dedupe import NOTE
from pycline.context.lighten import RECENT_TURNS, lighten
from pycline.messages import Message, TextContent
from tests.context.test_lighten import TASK, native_turn, xml_turn


def reads(count: int, path: str = "a.py") -> list[Message]:
    out: list[Message] = []
    for i in range(count):
        out += native_turn(100 + i, "read_file", {"path": path}, f"v{i} = {i}\n" * 100)
    return out


def test_old_steps_with_only_superseded_results_leave_with_one_line_counting_them() -> None:
    first = native_turn(1, "read_file", {"path": "setup.py"}, "setup()\n" * 50)
    history = [TASK, *first, *reads(RECENT_TURNS + 5)]
    sent = lighten(history)
    # The task and the first step stay; the five oldest re-reads of a.py are gone.
    assert sent[:2] == history[:2]
    assert sent[2].content[-1] == TextContent(digest({"read_file": 5}))
    assert len(sent) == len(history) - 10
    # The recent steps stay as they were, the latest copy whole.
    assert "v14 = 14" in sent[-1].text and NOTE not in sent[-1].text
    roles = [m.role for m in sent]
    assert roles == ["user", "assistant"] * (len(sent) // 2) + ["user"]


def test_a_step_whose_result_is_the_latest_copy_of_a_file_is_kept_however_old() -> None:
    keep = native_turn(1, "read_file", {"path": "keep.py"}, "KEEP = 1\n" * 50)
    history = [TASK, *native_turn(0, "list_files", {"path": "."}, "a.py\n"), *keep]
    history += reads(2 * RECENT_TURNS)
    sent = lighten(history)
    assert "KEEP = 1" in sent[4].text
    assert sent[3] == keep[0]


def test_user_words_errors_and_news_keep_a_step() -> None:
    stale = native_turn(1, "read_file", {"path": "a.py"}, "old\n" * 100)
    with_feedback = [stale[0], Message("user", (*stale[1].content[:1], TextContent("Use tabs!")))]
    history = [TASK, *native_turn(0, "list_files", {"path": "."}, "a.py\n"), *with_feedback]
    history += reads(2 * RECENT_TURNS)
    sent = lighten(history)
    assert any("Use tabs!" in m.text for m in sent)


def test_xml_steps_collapse_like_native_ones() -> None:
    history = [TASK, *xml_turn("list_files", {"path": "."}, "a.py\n")]
    for i in range(RECENT_TURNS + 3):
        history += xml_turn("search_files", {"path": ".", "regex": "x"}, f"build {i}\n" * 50)
    sent = lighten(history)
    assert digest({"search_files": 3}) in sent[2].text
    assert len(sent) == len(history) - 6
