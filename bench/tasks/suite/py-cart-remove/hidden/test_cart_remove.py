from __future__ import annotations

import pytest
from inventory.cart import Cart


def cart():
    c = Cart({"mug": 500, "pot": 900})
    c.add("mug", 3)
    return c


def test_lowers_and_drops():
    c = cart()
    c.remove("mug", 2)
    assert c.items == {"mug": 1}
    c.remove("mug")
    assert c.items == {}


def test_errors():
    with pytest.raises(KeyError):
        cart().remove("pot")
    with pytest.raises(ValueError):
        cart().remove("mug", 4)
