from __future__ import annotations

import pytest
from inventory.cart import Cart


def test_adding_twice_sums():
    cart = Cart({"mug": 500})
    cart.add("mug", 2)
    cart.add("mug", 3)
    assert cart.items == {"mug": 5}
    assert cart.subtotal() == 2500


def test_unknown_item_still_refused():
    with pytest.raises(KeyError):
        Cart({}).add("ghost")
