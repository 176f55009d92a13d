"""A shopping cart."""

from inventory.pricing import tax_for


class Cart:
    def __init__(self, prices: dict[str, int]) -> None:
        self.prices = prices
        self.items: dict[str, int] = {}
        self.discount_percent = 0

    def add(self, name: str, qty: int = 1) -> None:
        if name not in self.prices:
            raise KeyError(name)
        self.items[name] = qty

    def subtotal(self) -> int:
        return sum(self.prices[name] * qty for name, qty in self.items.items())

    def total(self) -> int:
        subtotal = self.subtotal()
        if self.discount_percent:
            subtotal = subtotal - subtotal * self.discount_percent // 100
        return subtotal + tax_for(subtotal)
