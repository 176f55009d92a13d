from __future__ import annotations

from inventory.money import format_price, parse_price


def test_two_decimals():
    assert format_price(105) == "$1.05"
    assert format_price(1999) == "$19.99"
    assert format_price(0) == "$0.00"


def test_negative():
    assert format_price(-250) == "-$2.50"


def test_round_trip():
    for cents in (1, 10, 99, 100, 12345):
        assert parse_price(format_price(cents)) == cents
