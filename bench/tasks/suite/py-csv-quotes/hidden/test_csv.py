from __future__ import annotations

import inventory.text as text


def test_plain():
    assert text.parse_csv_line("a,b,c") == ["a", "b", "c"]


def test_quoted_comma():
    assert text.parse_csv_line('mug,"Blue, large",5') == ["mug", "Blue, large", "5"]


def test_escaped_quote():
    assert text.parse_csv_line('"say ""hi""",x') == ['say "hi"', "x"]


def test_empty_fields():
    assert text.parse_csv_line(",,") == ["", "", ""]


def test_no_csv_module():
    assert "csv" not in vars(text)
