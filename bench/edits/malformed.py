"""Malformed blocks for the edit benchmark: every one must be refused, none may write a marker.

Shapes models really produce: a doubled `=======`, a `=======` where the REPLACE marker belongs,
a marker with trailing spaces or indentation, in each accepted marker style.
"""

from __future__ import annotations

import random
import re

from corpus import Source, _simple

STARTS = ("------- SEARCH", "<<<<<<< SEARCH")
ENDS = ("+++++++ REPLACE", ">>>>>>> REPLACE")
SEPARATORS = ("=======", "===", "==========")
MARKER = re.compile(r"^\s*(?:[-<]{3,} SEARCH>?|={3,}|[+>]{3,} REPLACE>?)\s*$")

SHAPES = (
    "doubled separator",
    "separator instead of REPLACE marker",
    "separator instead of REPLACE marker, then a block",
    "REPLACE marker with trailing space",
    "indented separator inside the replacement",
)


def gen_malformed(src: Source, rng: random.Random) -> tuple[str, str, str | None, str] | None:
    got = _simple(src, rng)
    if got is None:
        return None
    start_line, size, change = got
    search = src.lines[start_line : start_line + size]
    new = list(change.new)
    start, end, sep = rng.choice(STARTS), rng.choice(ENDS), rng.choice(SEPARATORS)
    shape = rng.choice(SHAPES)
    cut = rng.randint(0, len(new))
    match shape:
        case "doubled separator":
            body = [*new[:cut], sep, *new[cut:], end]
        case "separator instead of REPLACE marker":
            body = [*new, sep]
        case "separator instead of REPLACE marker, then a block":
            body = [*new, sep, start, search[0], sep, search[0], end]
        case "REPLACE marker with trailing space":
            # Not the diff's last line: the tool trims the diff, which would repair that one.
            body = [*new, end + " ", start, search[0], sep, search[0], end]
        case _:
            body = [*new[:cut], "    " + sep, *new[cut:], end]
    diff = "\n".join([start, *search, sep, *body])
    return "\n".join(src.lines), diff, None, shape


def markers_written(original: str, result: str) -> int:
    """Marker-like lines the result has beyond those the original already had."""
    before = sum(1 for line in original.split("\n") if MARKER.match(line))
    after = sum(1 for line in result.split("\n") if MARKER.match(line))
    return max(0, after - before)
