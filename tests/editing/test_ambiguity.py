"""A SEARCH that fits several places is an error, unless the evidence settles it."""

from __future__ import annotations

import pytest

from pycline.editing.search_replace import SearchReplaceError, apply_search_replace
from tests.editing.helpers import apply, block

SOURCE = """\
def first():
    value = load()
    return None

def second():
    value = load()
    return None
"""


def test_exact_search_found_twice_is_refused() -> None:
    with pytest.raises(SearchReplaceError) as caught:
        apply_search_replace(SOURCE, block("    return None", "    return value"))
    message = str(caught.value)
    assert "matches 2 places" in message
    assert "lines 3" in message.replace("line 3", "lines 3") and "7" in message


def test_trimmed_search_found_twice_is_refused() -> None:
    with pytest.raises(SearchReplaceError):
        apply_search_replace(SOURCE, block("value = load()\nreturn None", "value = 1\nreturn None"))


def test_an_earlier_block_settles_which_place_comes_next() -> None:
    out = apply(
        SOURCE,
        block("def second():", "def second(flag):"),
        block("    return None", "    return flag"),
    )
    assert out.endswith("def second(flag):\n    value = load()\n    return flag\n")
    assert out.startswith("def first():\n    value = load()\n    return None\n")


def test_more_context_makes_it_unique() -> None:
    out = apply(
        SOURCE, block("def first():\n    value = load()", "def first():\n    value = load(1)")
    )
    assert "    value = load(1)\n" in out
    assert out.count("load()") == 1


def test_anchor_places_that_tie_are_refused() -> None:
    source = "if a:\n    x = 1\n    y = 2\nend\nif a:\n    x = 3\n    y = 4\nend\n"
    # First/last lines fit both; the middle fits neither better.
    with pytest.raises(SearchReplaceError):
        apply_search_replace(
            source, block("if a:\n    x = 9\n    y = 9\nend", "if a:\n    x = 0\n    y = 9\nend")
        )


def test_fuzzy_places_that_tie_are_refused() -> None:
    source = (
        "def a():\n    total = price * qty\n    log(total)\n    return total\n\n"
        "def b():\n    total = price * qty\n    log(total)\n    return total\n"
    )
    search = "    total = price * qty\n    log(totals)\n    return total"
    with pytest.raises(SearchReplaceError):
        apply_search_replace(
            source, block(search, "    total = price * qty\n    log(totals)\n    return 0")
        )


def test_streaming_prefix_shows_a_provisional_place_instead_of_failing() -> None:
    partial = "------- SEARCH\n    return None\n=======\n    return 1"
    outcome = apply_search_replace(SOURCE, partial, is_final=False)
    assert outcome.content.endswith("    return 1\n")
