"""Prices are kept as integer cents."""


def format_price(cents: int) -> str:
    """Format cents as dollars, e.g. 1999 -> "$19.99"."""
    return f"${cents // 100}.{cents % 100}"


def parse_price(text: str) -> int:
    """Parse "$19.99" or "19.99" into cents."""
    text = text.strip().lstrip("$")
    dollars, _, cents = text.partition(".")
    return int(dollars) * 100 + int((cents + "00")[:2])
