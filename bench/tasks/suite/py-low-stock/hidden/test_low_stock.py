from __future__ import annotations

from inventory.stock import Inventory


def test_low_stock():
    inv = Inventory()
    inv.receive("pot", 2)
    inv.receive("mug", 10)
    inv.receive("cup", 1)
    inv.ship("mug", 9)
    assert inv.low_stock(3) == ["cup", "mug", "pot"]
    assert inv.low_stock(2) == ["cup", "mug"]
    assert inv.low_stock(0) == []
