from __future__ import annotations

import re

from pycline.terminal.collector import OutputCollector


def test_small_output_is_kept_whole() -> None:
    c = OutputCollector()
    c.add("a\nb\n")
    c.add("c")
    assert c.text() == "a\nb\nc"
    assert c.total_lines == 3


def test_long_output_keeps_head_and_tail_and_counts_the_rest() -> None:
    c = OutputCollector(head_lines=3, tail_lines=2)
    for i in range(1, 101):
        c.add(f"line {i}\n")
    text = c.text()
    assert text.startswith("line 1\nline 2\nline 3\n")
    assert text.endswith("line 99\nline 100\n")
    match = re.search(r"\[\.\.\. (\d+) lines \((\d+) characters\) omitted \.\.\.\]", text)
    assert match is not None
    assert int(match.group(1)) == 95
    kept = "".join(f"line {i}\n" for i in (1, 2, 3, 99, 100))
    assert int(match.group(2)) == c.total_chars - len(kept)


def test_character_limits_bound_one_huge_line() -> None:
    c = OutputCollector(head_chars=100, tail_chars=200)
    for _ in range(1000):
        c.add("x" * 1000)
    text = c.text()
    assert len(text) < 400
    assert "omitted" in text


def test_head_fills_across_chunks_then_tail_rolls() -> None:
    c = OutputCollector(head_lines=2, tail_lines=2, tail_chars=1000)
    c.add("one\ntw")
    c.add("o\nthree\nfour\nfive\n")
    text = c.text()
    assert text.startswith("one\ntwo\n")
    assert text.endswith("four\nfive\n")
    assert "1 lines" in text
