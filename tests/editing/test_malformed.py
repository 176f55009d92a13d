"""Malformed SEARCH/REPLACE blocks are refused: no marker line ever reaches the file."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pycline.editing.markers import is_marker, looks_like_marker
from pycline.editing.search_replace import SearchReplaceError, apply_search_replace

ORIGINAL = "def f():\n    return 1\n\nprint(f())\n"
STARTS = ("------- SEARCH", "<<<<<<< SEARCH", "--- SEARCH", "<<<<<<<<<< SEARCH")
SEPARATORS = ("=======", "===", "==========")
ENDS = ("+++++++ REPLACE", ">>>>>>> REPLACE", "+++ REPLACE", ">>>>>>>>>> REPLACE")

SHAPES = {
    "doubled separator": "{start}\n    return 1\n{sep}\n    return 2\n{sep}\n    return 3\n{end}",
    "separator where the end belongs": "{start}\n    return 1\n{sep}\n    return 2\n{sep}",
    "separator then the next block": (
        "{start}\n    return 1\n{sep}\n    return 2\n{sep}\n{start}\nprint(f())\n{sep}\n"
        "print(f() + 1)\n{end}"
    ),
    "end marker with trailing space": "{start}\n    return 1\n{sep}\n    return 2\n{end} ",
    "indented end marker": "{start}\n    return 1\n{sep}\n    return 2\n    {end}",
    "indented separator in the replacement": (
        "{start}\n    return 1\n{sep}\n    return 2\n  {sep}\n{end}"
    ),
}

CASES = [
    (shape, start, sep, end)
    for shape, (start, sep, end) in itertools.product(
        SHAPES, itertools.product(STARTS, SEPARATORS, ENDS)
    )
]


@pytest.mark.parametrize(("shape", "start", "sep", "end"), CASES)
def test_malformed_block_is_refused_in_every_marker_style(
    shape: str, start: str, sep: str, end: str
) -> None:
    diff = SHAPES[shape].format(start=start, sep=sep, end=end)
    with pytest.raises(SearchReplaceError) as caught:
        apply_search_replace(ORIGINAL, diff)
    message = str(caught.value)
    assert "block 1" in message or "only block" in message
    assert "------- SEARCH\n[exact lines from the file]\n=======\n[new lines]\n+++++++ REPLACE" in (
        message
    )


def test_a_malformed_second_block_names_that_block() -> None:
    diff = (
        "------- SEARCH\ndef f():\n=======\ndef g():\n+++++++ REPLACE\n"
        "------- SEARCH\nprint(f())\n=======\nprint(g())\n=======\n+++++++ REPLACE"
    )
    with pytest.raises(SearchReplaceError) as caught:
        apply_search_replace(ORIGINAL, diff)
    assert caught.value.block_index == 1
    assert "block 2" in str(caught.value)


def test_a_streamed_prefix_with_a_doubled_separator_is_refused_too() -> None:
    diff = "------- SEARCH\n    return 1\n=======\n    return 2\n=======\n    return"
    with pytest.raises(SearchReplaceError):
        apply_search_replace(ORIGINAL, diff, is_final=False)


def _markerish(line: str) -> bool:
    return is_marker(line) or looks_like_marker(line)


MARKER_LINES = st.sampled_from([*STARTS, *SEPARATORS, *ENDS, "======= ", " >>>>>>> REPLACE"])
CONTENT_LINES = st.sampled_from(["def f():", "    return 1", "", "print(f())", "    return 2"])


@settings(max_examples=400, deadline=None)
@given(st.lists(MARKER_LINES | CONTENT_LINES, min_size=1, max_size=14))
def test_no_generated_diff_writes_a_marker_line(lines: list[str]) -> None:
    try:
        content = apply_search_replace(ORIGINAL, "\n".join(lines)).content
    except SearchReplaceError:
        return
    assert not [line for line in content.split("\n") if _markerish(line)]
