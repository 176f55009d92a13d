"""Text without lone UTF-16 surrogates.

A streaming server that cuts an emoji between two JSON deltas (`"\\ud83d"`, then `"\\ude00"`)
hands us each half as a lone surrogate, which no UTF-8 file or terminal accepts. The joiner keeps a
trailing high surrogate until the next piece arrives, pairs what pairs, and turns what stays alone
into U+FFFD.
"""

from __future__ import annotations

import re

_SURROGATE = re.compile("[\ud800-\udfff]")


def clean(text: str) -> str:
    """`text` with surrogate pairs joined and lone surrogates replaced by U+FFFD."""
    if not _SURROGATE.search(text):
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


class SurrogateJoiner:
    """`clean` for text that arrives in pieces."""

    def __init__(self) -> None:
        self._held = ""

    def feed(self, piece: str) -> str:
        text = self._held + piece
        self._held = ""
        if text and "\ud800" <= text[-1] <= "\udbff":
            self._held, text = text[-1], text[:-1]
        return clean(text)

    def finish(self) -> str:
        text, self._held = clean(self._held), ""
        return text


def clean_json(value: object) -> object:
    """A decoded JSON value with `clean` applied to every string in it, keys included.

    JSON can spell a lone surrogate (`"\\ud800"`), so any message decoded from outside may hold
    one; cleaned where it is decoded, it can be saved, shown and sent on."""
    match value:
        case str():
            return clean(value)
        case list():
            return [clean_json(item) for item in value]
        case dict():
            return {clean(str(k)): clean_json(v) for k, v in value.items()}
        case _:
            return value
