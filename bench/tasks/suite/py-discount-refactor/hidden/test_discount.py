from __future__ import annotations

import inspect

import inventory.cart
from inventory.cart import Cart
from inventory.pricing import apply_discount


def test_apply_discount():
    assert apply_discount(1000, 15) == 850
    assert apply_discount(999, 10) == 900
    assert apply_discount(500, 0) == 500


def test_total_unchanged():
    cart = Cart({"mug": 999})
    cart.add("mug", 3)
    cart.discount_percent = 10
    assert cart.total() == 2698 + round(2698 * 0.08)


def test_cart_uses_it():
    assert "apply_discount" in inspect.getsource(inventory.cart)
