"""Applying a diff while it streams: every prefix gives the file as far as the edit has got."""

from __future__ import annotations

from pycline.editing.search_replace import apply_search_replace
from tests.editing.helpers import block

ORIGINAL = "def f():\n    x = 1\n    return x\n\ndef g():\n    return 2\n"


def test_prefixes_grow_towards_the_final_result() -> None:
    diff = (
        block("    x = 1", "    x = 10\n    y = 2") + "\n" + block("    return 2", "    return 20")
    )
    final = apply_search_replace(ORIGINAL, diff).content
    previous = ""
    for n in range(len(diff) + 1):
        partial = apply_search_replace(ORIGINAL, diff[:n].strip(), is_final=False).content
        assert final.startswith(partial.rstrip("\n").rsplit("\n", 1)[0]) or partial == ""
        assert len(partial) >= len(previous.rsplit("\n", 2)[0])
        previous = partial
    assert final == "def f():\n    x = 10\n    y = 2\n    return x\n\ndef g():\n    return 20\n"


def test_streamed_lines_are_reindented_like_the_final_result() -> None:
    diff = "------- SEARCH\nx = 1\nreturn x\n=======\nx = 5\nprint(x)"
    partial = apply_search_replace(ORIGINAL, diff, is_final=False)
    assert partial.content == "def f():\n    x = 5\n    print(x)\n"


def test_a_marker_still_arriving_is_not_shown_as_content() -> None:
    diff = "------- SEARCH\n    x = 1\n=======\n    x = 2\n+++++++ REP"
    partial = apply_search_replace(ORIGINAL, diff, is_final=False)
    assert partial.content == "def f():\n    x = 2\n"


def test_a_replace_line_that_merely_starts_like_a_marker_is_content() -> None:
    original = "# List\n- a\n- b\n"
    out = apply_search_replace(original, "------- SEARCH\n- b\n=======\n- b\n- c").content
    assert out == "# List\n- a\n- b\n- c\n"
