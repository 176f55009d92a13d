"""What the model is told when a block fails: which block, where, and how it differs."""

from __future__ import annotations

import pytest

from pycline.editing.search_replace import SearchReplaceError, apply_search_replace
from tests.editing.helpers import block

SOURCE = "".join(f"line {i}\n" for i in range(1, 41)).replace(
    "line 20\n", "def compute(a, b):\n    return a + b\n"
)


def _error(original: str, diff: str) -> SearchReplaceError:
    with pytest.raises(SearchReplaceError) as caught:
        apply_search_replace(original, diff)
    return caught.value


def test_no_match_names_the_block_and_shows_the_closest_region_numbered() -> None:
    error = _error(
        SOURCE,
        block("line 2", "LINE 2")
        + "\n"
        + block("def compute(a, c):\n    return a - b", "def compute(a, c):\n    return a * b"),
    )
    message = str(error)
    assert error.block_index == 1
    assert message.startswith("The SEARCH block:\ndef compute(a, c):")
    assert "block 2 of 2" in message
    assert "20 | def compute(a, b):" in message
    assert "21 |     return a + b" in message
    assert "- def compute(a, c):" in message
    assert "+ def compute(a, b):" in message
    assert "-     return a - b" in message
    assert "-     return a - b" in message


def test_no_match_says_when_only_whitespace_differs() -> None:
    original = "if x:\n\tdo()\n\tdone()\n"
    message = str(_error(original, block("if x:\n\tdo( )\n\tdone()", "if x:\n\tdo(1)\n\tdone()")))
    assert "lines 1-3" in message


def test_no_match_with_nothing_similar_says_so() -> None:
    message = str(_error(SOURCE, block("class Completely:\n    unrelated = True", "x")))
    assert "No region of the file resembles it" in message


def test_conflict_explains_that_the_file_changed_under_the_edit() -> None:
    original = "def f():\n    a = 1\n    b = 2\n    c = 3\n    return a + b + c\n"
    search = "def f():\n    a = 1\n    b = 20\n    c = 3\n    return a + b + c"
    replace = "def f():\n    a = 1\n    b = 21\n    c = 3\n    return a + b + c"
    message = str(_error(original, block(search, replace)))
    assert "approximately" in message or "does not match" in message
    assert "b = 2" in message


def test_malformed_block_keeps_clines_text_and_points_at_the_bad_marker() -> None:
    message = str(_error("a\nb\n", "------- SEARCH\nb\n======= \nB\n+++++++ REPLACE"))
    assert message.startswith("The SEARCH block:\nb\n======= \nB\n...is malformatted.")
    assert "'======= '" in message


def test_bad_search_marker_is_pointed_out() -> None:
    message = str(_error("a\nb\n", "<<-- SEARCH\nb\n=======\nB\n+++++++ REPLACE"))
    assert message.startswith("Empty SEARCH block detected with non-empty file.")
    assert "<<-- SEARCH" in message


def test_search_without_separator_is_an_error_not_a_silent_no_op() -> None:
    # Cline returns the file unchanged here, and the model believes the edit happened.
    message = str(_error("a\nb\n", "------- SEARCH\nb"))
    assert "incomplete" in message


def test_diff_without_blocks_is_an_error() -> None:
    message = str(_error("a\n", "just some text"))
    assert "No SEARCH/REPLACE block" in message


def test_block_overlapping_an_earlier_one_is_reported() -> None:
    original = "a\nb\nc\n"
    message = str(_error(original, block("a\nb", "A\nB") + "\n" + block("b\nc", "B\nC")))
    assert "block 1" in message


def test_new_code_written_as_a_replacement_of_its_first_line_gets_the_block_that_adds_it() -> None:
    # Qwen2.5-Coder 1.5B asked to add Max: SEARCH its signature, REPLACE the whole function.
    go = "package p\n\nfunc Sum(xs []int) int {\n\treturn 0\n}\n\nfunc One() int {\n\treturn 0\n}\n"
    new = "func Max(xs []int) int {\n\treturn 1\n}"
    message = str(_error(go, block("func Max(xs []int) int {", new)))
    assert "this looks like new code" in message
    # The anchor is the file's last lines, as many as it takes to be found once.
    suggested = message.split("send this block:\n", 1)[1]
    anchor = "\treturn 0\n}"  # found twice: not enough
    assert suggested.startswith("------- SEARCH\nfunc One() int {\n" + anchor + "\n=======\n")
    fixed = apply_search_replace(go, suggested.split("\n+++++++ REPLACE")[0] + "\n+++++++ REPLACE")
    assert fixed.content == go + "\n" + new + "\n"
    # The signature without the brace that opens the body, as the same model writes it too.
    assert "this looks like new code" in str(_error(go, block("func Max(xs []int) int", new)))
    # A plain miss (REPLACE not starting with SEARCH) keeps the closest-region report.
    assert "new code" not in str(_error(go, block("func Nope() int {", "func S() {}")))
    # Several lines repeated at the top of the REPLACE (a doubled block, as the same model also
    # sent): no suggestion to append it anywhere.
    doubled = "\tif v < lo {\n\t\treturn lo\n\t}"
    message = str(_error(go, block(doubled, doubled + "\n" + doubled)))
    assert "new code" not in message


def test_an_edit_sent_again_after_it_was_made_is_told_it_is_in_the_file_already() -> None:
    # Qwen2.5-Coder 1.5B made this edit, then sent the same block four times more.
    cart = (
        "class Cart:\n    def add(self, name: str, qty: int = 1) -> None:\n"
        "        self.items[name] += qty\n\n    def total(self) -> int:\n        return 0\n"
    )
    message = str(_error(cart, block("    self.items[name] = qty", "    self.items[name] += qty")))
    assert "Your REPLACE lines are in the file already (line 3)" in message
    assert "Do not send it again" in message and "closest region" not in message
    # Several lines, indented otherwise: found too, with their line range.
    two = "def total(self) -> int:\n    return 0"
    assert "(lines 5-6)" in str(_error(cart, block("def total(self):\n    pass", two)))
    # A REPLACE too short to tell (a lone `return 0` is everywhere) keeps the usual report.
    message = str(_error(cart, block("        return 1", "        return 0")))
    assert "in the file already" not in message and "closest region" in message
    # Lines the file does not have in a row are no sign of a change made.
    message = str(_error(cart, block("x = 1", "        self.items[name] += qty\n        return 0")))
    assert "in the file already" not in message


def test_the_tool_descriptions_example_sent_as_an_edit_is_named_as_the_example() -> None:
    # Qwen2.5-Coder 1.5B sent the example's block eight times in one refactoring task.
    message = str(_error(SOURCE, block("    port = 8000", "    port = 8080")))
    assert "is the example from the tool's description, not a line of this file" in message
    assert "closest region" not in message
