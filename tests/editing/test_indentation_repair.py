"""A SEARCH that matched only by ignoring indentation: new lines keep their neighbours' frame."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from pycline.editing.indentation import indent_of
from pycline.editing.search_replace import SearchReplaceError, apply_search_replace
from tests.editing.helpers import apply, block


def test_an_added_sibling_of_an_oddly_indented_search_line_lands_beside_it_in_the_file() -> None:
    original = "x = 0\nstmt_0()\nstmt_1()\n    stmt_2()\n"
    search = "stmt_0()\n  stmt_1()\n    stmt_2()"
    replace = "stmt_0()\n  stmt_1()\n  added()\n    stmt_2()"
    assert apply(original, block(search, replace)) == (
        "x = 0\nstmt_0()\nstmt_1()\nadded()\n    stmt_2()\n"
    )


def test_a_new_nested_block_keeps_its_shape_under_its_first_line() -> None:
    original = "def f():\n        a()\n        b()\n            c()\n"
    search = "def f():\n        a()\n        b()\n              c()"
    replace = (
        "def f():\n        a()\n        b()\n        if ok:\n            d()\n              c()"
    )
    assert apply(original, block(search, replace)) == (
        "def f():\n        a()\n        b()\n        if ok:\n            d()\n            c()\n"
    )


def test_a_replaced_line_keeps_the_file_indentation_of_the_line_it_replaces() -> None:
    original = "class A:\n    def f(self):\n        return 1\n"
    search = "def f(self):\n    return 1"
    replace = "def f(self):\n    return 2"
    assert apply(original, block(search, replace)) == (
        "class A:\n    def f(self):\n        return 2\n"
    )


@st.composite
def nested_edit(draw: st.DrawFn) -> tuple[str, str, str]:
    """A file block, the model's copy of it with its indentation damaged, and the edit adding a
    sibling (with a child) after line k. Returns (original, diff, expected sibling indent)."""
    depths = [0]
    for _ in range(draw(st.integers(1, 6))):
        depths.append(max(0, depths[-1] + draw(st.sampled_from([-1, 0, 0, 1]))))
    base = draw(st.integers(0, 2))
    damage = draw(st.sampled_from(["flush", "shifted", "one-line-off"]))
    odd = draw(st.integers(0, len(depths) - 1))
    k = draw(st.integers(0, len(depths) - 1))

    def model_indent(i: int, depth: int) -> str:
        if damage == "flush":
            return " " * (4 * depth)
        if damage == "shifted":
            return " " * (4 * (depth + base) + 4)
        return " " * (4 * (depth + base) + (2 if i == odd else 0))

    file_lines = [" " * (4 * (d + base)) + f"s{i}()" for i, d in enumerate(depths)]
    search = [model_indent(i, d) + f"s{i}()" for i, d in enumerate(depths)]
    replace = list(search)
    sibling = indent_of(search[k])
    replace[k + 1 : k + 1] = [sibling + "added()", sibling + "    child()"]
    original = "\n".join(["head = 1", *file_lines, "tail = 2"]) + "\n"
    return original, block("\n".join(search), "\n".join(replace)), indent_of(file_lines[k])


@settings(max_examples=300, deadline=None)
@given(nested_edit())
def test_added_lines_sit_beside_their_sibling_and_above_their_child(
    case: tuple[str, str, str],
) -> None:
    original, diff, sibling_indent = case
    try:
        lines = apply_search_replace(original, diff).content.split("\n")
    except SearchReplaceError:
        return
    added = next(line for line in lines if line.strip() == "added()")
    child = next(line for line in lines if line.strip() == "child()")
    assert indent_of(added) == sibling_indent
    assert indent_of(child) == sibling_indent + "    "
