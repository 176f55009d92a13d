"""Taxes on totals."""

TAX_RATE = 0.08


def tax_for(total_cents: int) -> int:
    return round(total_cents * TAX_RATE)
