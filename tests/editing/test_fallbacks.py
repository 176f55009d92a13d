"""Each way a SEARCH can be found, strictest first, and where the replacement goes."""

from __future__ import annotations

import pytest

from pycline.editing.search_replace import SearchReplaceError, apply_search_replace
from tests.editing.helpers import apply, block

SOURCE = """\
class Cart:
    def __init__(self):
        self.items = []

    def add(self, item, qty=1):
        if qty <= 0:
            raise ValueError("qty")
        self.items.append((item, qty))

    def total(self, prices):
        return sum(prices[i] * q for i, q in self.items)
"""


def test_exact_match_replaces_whole_lines_verbatim() -> None:
    out = apply(SOURCE, block("        if qty <= 0:", "        if qty < 1:"))
    assert "        if qty < 1:\n" in out
    assert out.replace("        if qty < 1:", "        if qty <= 0:") == SOURCE


def test_exact_match_never_lands_in_the_middle_of_a_line() -> None:
    # "qty <= 0:" is a substring of a line; Cline would splice there. It is found as a whole line
    # only by the trimmed stage, so the indentation survives.
    out = apply(SOURCE, block("if qty <= 0:", "if qty < 1:"))
    assert "        if qty < 1:\n" in out


def test_trimmed_lines_fallback_keeps_the_files_context_lines() -> None:
    search = 'def add(self, item, qty=1):\n    if qty <= 0:\n        raise ValueError("qty")'
    replace = 'def add(self, item, qty=1):\n    if qty <= 0:\n        raise ValueError("qty must be positive")'
    out = apply(SOURCE, block(search, replace))
    assert '            raise ValueError("qty must be positive")\n' in out
    assert "    def add(self, item, qty=1):\n        if qty <= 0:\n" in out


def test_block_anchor_fallback_keeps_a_context_line_that_changed_in_the_file() -> None:
    search = (
        "    def add(self, item, qty=1):\n"
        "        if qty < 0:\n"  # stale: the file says <= 0
        '            raise ValueError("qty")\n'
        "        self.items.append((item, qty))"
    )
    replace = (
        "    def add(self, item, qty=1):\n"
        "        if qty < 0:\n"
        '            raise ValueError("qty")\n'
        "        self.items.append((str(item), qty))"
    )
    out = apply(SOURCE, block(search, replace))
    assert "        if qty <= 0:\n" in out  # Cline would have pasted the stale `< 0` back
    assert "        self.items.append((str(item), qty))\n" in out


def test_block_anchor_needs_a_resembling_middle() -> None:
    source = "def a():\n    x = 1\n    return None\n\ndef b():\n    y = compute()\n    z = y * 2\n    return None\n"
    # First and last lines match at `def b` only by anchor; the middle is unrelated.
    search = "def b():\n    totally = different\n    stuff = here\n    return None"
    with pytest.raises(SearchReplaceError):
        apply_search_replace(source, block(search, "def b():\n    pass\n    pass\n    return 1"))


def test_out_of_order_blocks_are_applied() -> None:
    out = apply(
        SOURCE,
        block("        return sum(prices[i] * q for i, q in self.items)", "        return 0"),
        block("        self.items = []", "        self.items = [None]"),
    )
    assert "        return 0\n" in out
    assert "        self.items = [None]\n" in out


def test_out_of_order_block_with_lost_indentation_is_applied() -> None:
    out = apply(
        SOURCE,
        block("        return sum(prices[i] * q for i, q in self.items)", "        return 0"),
        block("self.items = []", "self.items = [None]"),
    )
    assert "        self.items = [None]\n" in out


def test_fuzzy_match_takes_the_single_clearly_best_region() -> None:
    search = (
        "    def total(self, price_table):\n"  # stale signature
        "        return sum(prices[i] * q for i, q in self.items)"
    )
    replace = (
        "    def total(self, price_table):\n"
        "        return round(sum(prices[i] * q for i, q in self.items), 2)"
    )
    out = apply(SOURCE, block(search, replace))
    assert "    def total(self, prices):\n" in out  # the file's signature is kept
    assert "        return round(sum(prices[i] * q for i, q in self.items), 2)\n" in out


def test_fuzzy_match_refuses_when_the_edited_line_itself_changed() -> None:
    search = (
        "    def total(self, prices):\n        return sum(prices[i] * qty for i, qty in self.items)"
    )
    replace = "    def total(self, prices):\n        return 0"
    with pytest.raises(SearchReplaceError) as caught:
        apply_search_replace(SOURCE, block(search, replace))
    assert "does not match anything" in str(caught.value) or "approximately" in str(caught.value)


def test_search_that_skips_a_line_keeps_that_line() -> None:
    search = "class Cart:\n    def __init__(self):\n\n    def add(self, item, qty=1):"
    replace = "class Cart:\n    def __init__(self):\n\n    def add(self, item, qty=2):"
    out = apply(SOURCE, block(search, replace))
    assert "        self.items = []\n" in out
    assert "    def add(self, item, qty=2):\n" in out


def test_elided_middle_is_kept_when_replace_keeps_the_elision() -> None:
    search = (
        "    def add(self, item, qty=1):\n        # ...\n        self.items.append((item, qty))"
    )
    replace = "    def add(self, item, qty=1):\n        # ...\n        self.items.append((item, int(qty)))"
    out = apply(SOURCE, block(search, replace))
    assert '            raise ValueError("qty")\n' in out
    assert "        self.items.append((item, int(qty)))\n" in out
    assert "# ..." not in out


def test_elision_dropped_from_replace_is_refused() -> None:
    search = (
        "    def add(self, item, qty=1):\n        # ...\n        self.items.append((item, qty))"
    )
    with pytest.raises(SearchReplaceError):
        apply_search_replace(SOURCE, block(search, "    def add(self, item):\n        pass"))


def test_empty_search_inserts_into_an_empty_file() -> None:
    assert apply("", "------- SEARCH\n=======\nhello\n+++++++ REPLACE") == "hello\n"


def test_blocks_in_order_with_the_same_search_take_the_places_in_turn() -> None:
    source = "a\nx = 1\nb\nx = 1\nc\n"
    out = apply(source, block("x = 1", "x = 2"), block("x = 1", "x = 3"))
    assert out == "a\nx = 2\nb\nx = 3\nc\n"


def test_a_blank_last_line_at_end_of_file_does_not_grow_the_file() -> None:
    source = "func f() {\n\treturn nil\n}\n"
    out = apply(source, block("\treturn nil\n}\n", "\treturn err\n}\n"))
    assert out == "func f() {\n\treturn err\n}\n"
