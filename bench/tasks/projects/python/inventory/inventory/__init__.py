"""A tiny shop back end: prices, carts, stock and text helpers."""
