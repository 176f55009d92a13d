"""Line keys for tolerant matching, and line-number prefixes copied from read_file output."""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass

_QUOTES = str.maketrans(
    {
        "\u2018": "'",
        "\u2019": "'",
        "\u201a": "'",
        "\u201b": "'",
        "\u2032": "'",
        "\u201c": '"',
        "\u201d": '"',
        "\u201e": '"',
        "\u201f": '"',
        "\u2033": '"',
        "\u00a0": " ",
        "\u2007": " ",
        "\u2009": " ",
        "\u202f": " ",
        "\u200b": "",
        "\ufeff": "",
        "\u2013": "-",
        "\u2014": "-",
        "\u2212": "-",
    }
)
_SPACES = re.compile(r"\s+")


def trimmed(line: str) -> str:
    """Cline's line-trimmed comparison: leading/trailing whitespace (and a stray CR) ignored."""
    return line.strip()


def normalized(line: str) -> str:
    """Also ignore typographic quotes/dashes, odd spaces, and runs of inner whitespace."""
    text = line.translate(_QUOTES).replace("\u2026", "...")
    return _SPACES.sub(" ", text).strip()


def has_smart_punctuation(text: str) -> bool:
    return text != text.translate(_QUOTES)


# `12 | code`, `12| code`, `12: code`, `12→code`, `  12\tcode` (cat -n). The number must be
# followed by a separator so that ordinary lines starting with digits are never touched.
_NUMBERED = re.compile(r"^\s*(\d{1,6})(?: ?\| ?|: |:\t|\u2192|\t)")


@dataclass(frozen=True, slots=True)
class Numbered:
    """A SEARCH whose lines carry line numbers: the lines without them, and the first number."""

    lines: tuple[str, ...]
    first_line: int


def strip_line_numbers(lines: Sequence[str]) -> Numbered | None:
    """Detect line numbers a model copied from numbered file output.

    Every non-blank line must carry a number, the numbers must rise by one per line, and all
    lines must use the same separator: that much evidence never fires on real code.
    """
    numbers: list[int] = []
    stripped: list[str] = []
    separator: str | None = None
    for line in lines:
        match = _NUMBERED.match(line)
        if match is None:
            if line.strip():
                return None
            stripped.append(line)
            continue
        sep = match.group(0)[match.end(1) - match.start(0) :]
        if separator is None:
            separator = sep
        elif sep != separator:
            return None
        numbers.append(int(match.group(1)))
        stripped.append(line[match.end() :])
    if not numbers:
        return None
    if any(b != a + 1 for a, b in itertools.pairwise(numbers)):
        # Blank lines may have lost their number; numbers must still only grow.
        if any(b <= a for a, b in itertools.pairwise(numbers)):
            return None
        if numbers[-1] - numbers[0] != len(lines) - 1:
            return None
    return Numbered(tuple(stripped), numbers[0])


def strip_numbers_like(lines: Sequence[str]) -> list[str]:
    """Remove number prefixes from REPLACE lines once the SEARCH is known to carry them."""
    out: list[str] = []
    for line in lines:
        match = _NUMBERED.match(line)
        out.append(line[match.end() :] if match else line)
    return out
