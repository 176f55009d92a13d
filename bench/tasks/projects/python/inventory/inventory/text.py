"""Text helpers for product names."""


def slugify(name: str) -> str:
    """ "Blue Mug (Large)" -> "blue-mug-large"."""
    out = []
    for ch in name.lower():
        out.append(ch if ch.isalnum() else "-")
    return "".join(out)


def parse_csv_line(line: str) -> list[str]:
    """Split one CSV line into fields."""
    return line.split(",")
