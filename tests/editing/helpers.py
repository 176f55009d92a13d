"""Building diffs for the editing tests."""

from __future__ import annotations

from pycline.editing.search_replace import apply_search_replace


def block(search: str, replace: str) -> str:
    return f"------- SEARCH\n{search}\n=======\n{replace}\n+++++++ REPLACE"


def apply(original: str, *blocks: str) -> str:
    return apply_search_replace(original, "\n".join(blocks)).content
