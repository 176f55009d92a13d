"""Differences between the model's SEARCH and the file that do not change what the edit means."""

from __future__ import annotations

from pycline.editing.search_replace import apply_search_replace
from tests.editing.helpers import apply, block

PY = """\
def load(path):
    with open(path) as fh:
        for line in fh:
            yield line.strip()
"""


def test_lost_indentation_is_restored_on_the_new_lines() -> None:
    search = "for line in fh:\n    yield line.strip()"
    replace = "for line in fh:\n    if line.strip():\n        yield line.strip()"
    out = apply(PY, block(search, replace))
    assert out == (
        "def load(path):\n"
        "    with open(path) as fh:\n"
        "        for line in fh:\n"
        "            if line.strip():\n"
        "                yield line.strip()\n"
    )


def test_two_space_steps_become_the_files_four() -> None:
    search = "  with open(path) as fh:\n    for line in fh:"
    replace = '  with open(path, encoding="utf-8") as fh:\n    for line in fh:\n      print(line)'
    out = apply(PY, block(search, replace))
    assert (
        '    with open(path, encoding="utf-8") as fh:\n        for line in fh:\n            print(line)\n'
        in out
    )


def test_replacement_already_in_the_files_frame_is_not_shifted_again() -> None:
    # The SEARCH lost one line's indentation but the REPLACE is correct (Cline's streaming case).
    original = "function f() {\n    return 1;\n}\n"
    out = apply(original, block("function f() {\nreturn 1;\n}", "function f() {\n    return 2;\n}"))
    assert out == "function f() {\n    return 2;\n}\n"


def test_spaces_in_the_diff_become_tabs_in_a_tab_indented_file() -> None:
    go = "func f() {\n\tif ok {\n\t\treturn 1\n\t}\n}\n"
    search = "    if ok {\n        return 1\n    }"
    replace = "    if ok {\n        log.Print(1)\n        return 1\n    }"
    out = apply(go, block(search, replace))
    assert out == "func f() {\n\tif ok {\n\t\tlog.Print(1)\n\t\treturn 1\n\t}\n}\n"


def test_crlf_file_stays_crlf() -> None:
    original = "a = 1\r\nb = 2\r\nc = 3\r\n"
    out = apply(original, block("b = 2", "b = 20\nb2 = 21"))
    assert out == "a = 1\r\nb = 20\r\nb2 = 21\r\nc = 3\r\n"


def test_crlf_match_indices_point_into_the_crlf_text() -> None:
    original = "a = 1\r\nb = 2\r\n"
    outcome = apply_search_replace(original, block("b = 2", "b = 3"))
    assert outcome.match_indices == (original.index("b = 2"),)


def test_mixed_line_endings_keep_crlf_where_the_region_had_it() -> None:
    original = "x\nfirst\r\nsecond\r\nthird\r\ny\n"
    out = apply(original, block("first\nsecond\nthird", "first\nsecond and more\nthird"))
    assert out == "x\nfirst\r\nsecond and more\r\nthird\r\ny\n"


def test_diff_sent_with_crlf_is_read_like_lf() -> None:
    original = "a\nb\nc\n"
    diff = "------- SEARCH\r\nb\r\n=======\r\nB\r\n+++++++ REPLACE\r\n"
    assert apply(original, diff) == "a\nB\nc\n"


def test_trailing_whitespace_on_untouched_lines_is_kept() -> None:
    original = "one  \ntwo\nthree\t\n"
    out = apply(original, block("one\ntwo\nthree", "one\nTWO\nthree"))
    assert out == "one  \nTWO\nthree\t\n"


def test_smart_quotes_in_the_file_match_plain_quotes_in_the_search() -> None:
    original = "# Guide\n\nIt’s “simple”: run the tool.\nThen check the output.\n"
    search = 'It\'s "simple": run the tool.\nThen check the output.'
    replace = 'It\'s "simple": run the tool.\nThen check the output twice.'
    out = apply(original, block(search, replace))
    assert out == "# Guide\n\nIt’s “simple”: run the tool.\nThen check the output twice.\n"


def test_line_number_prefixes_copied_from_read_file_are_ignored() -> None:
    original = "a = 1\nb = 2\nc = 3\n"
    out = apply(original, block("2 | b = 2\n3 | c = 3", "b = 20\nc = 3"))
    assert out == "a = 1\nb = 20\nc = 3\n"


def test_cat_style_numbers_are_stripped_from_replace_too() -> None:
    original = "a = 1\nb = 2\nc = 3\n"
    out = apply(original, block("     2\tb = 2", "     2\tb = 22"))
    assert out == "a = 1\nb = 22\nc = 3\n"


def test_copied_line_number_picks_among_identical_places() -> None:
    original = "x = 0\ny\nx = 0\nz\n"
    out = apply(original, block("3 | x = 0", "x = 9"))
    assert out == "x = 0\ny\nx = 9\nz\n"


def test_numbers_that_are_real_content_are_left_alone() -> None:
    original = "1: first\n2: second\n"
    out = apply(original, block("1: first\n2: second", "1: one\n2: second"))
    assert out == "1: one\n2: second\n"
