"""JSON from outside (a tool call's arguments, an editor's message, a settings file) parsed with a
bound on its nesting.

`json.loads` recurses once per level: a hundred thousand `[` raise `RecursionError`, and a value
a few hundred levels deep still breaks the code that walks it later (validation, re-encoding).
The depth is measured first, linearly and without recursion, so nothing deeper than `max_depth`
is ever decoded; such input is refused with `TooDeep`, a `ValueError` like every other malformed
JSON, so callers handle both with one `except ValueError`.
"""

from __future__ import annotations

import json
import re
from typing import Any, Final

MAX_DEPTH: Final = 64

# A string literal (escapes included) in one match, or one bracket: brackets inside strings are
# skipped with their string, and a long string costs one match.
_STRUCTURE = re.compile(r'"(?:[^"\\]|\\.)*"?|[\[\]{}]', re.DOTALL)


class TooDeep(ValueError):
    """JSON nested deeper than the reader accepts."""


def depth(text: str) -> int:
    """The deepest nesting of arrays and objects in `text` (0 for a scalar), without decoding."""
    deepest = level = 0
    for match in _STRUCTURE.finditer(text):
        token = match.group()
        if token in "[{":
            level += 1
            deepest = max(deepest, level)
        elif token in "]}":
            level -= 1
    return deepest


def loads(text: str | bytes, *, max_depth: int = MAX_DEPTH) -> Any:
    """`json.loads`, refusing input nested deeper than `max_depth` with `TooDeep`.

    Bytes are decoded as UTF-8 first (a `UnicodeDecodeError` is a `ValueError` too)."""
    if isinstance(text, bytes):
        text = text.decode("utf-8")
    if depth(text) > max_depth:
        raise TooDeep(f"nested deeper than {max_depth} levels")
    return json.loads(text)
