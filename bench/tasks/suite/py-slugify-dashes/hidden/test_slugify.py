from __future__ import annotations

from inventory.text import slugify


def test_examples():
    assert slugify("Blue Mug (Large)") == "blue-mug-large"
    assert slugify("  Tea -- Pot!! ") == "tea-pot"
    assert slugify("plain") == "plain"
