"""What a run's input costs when the provider caches repeated prefixes.

Providers do not bill raw tokens. OpenAI caches every repeated prefix of a prompt on its own,
Anthropic caches up to the request's breakpoints; cached input costs about a tenth. The model used
here: the longest prefix a request shares with any earlier request of the same run counts as
cached, in whole 128-token blocks and only from 1,024 tokens on, at 0.1; the rest at 1.0 (OpenAI)
or 1.25 (Anthropic, whose cache writes cost a quarter more). Figures are in input-token units, so
a run that caches nothing costs its raw tokens (OpenAI).

A request is compared as the sequence of pieces `cline_task.request_pieces` gives (tool
definitions, then each message's texts and calls); a prefix may end inside a piece. Every earlier
request is kept in a trie of pieces, so each request is priced in time linear in its own size.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from cline_task import Piece

CHARS_PER_TOKEN = 4
BLOCK = 128
MIN_CACHED = 1_024
CACHED = 0.1
UNCACHED = {"openai": 1.0, "anthropic": 1.25}


@dataclass(frozen=True)
class Priced:
    tokens: int
    cached: int  # tokens read from the cache

    def cost(self, vendor: str) -> float:
        return CACHED * self.cached + UNCACHED[vendor] * (self.tokens - self.cached)


@dataclass
class _Node:
    children: dict[Piece, _Node] = field(default_factory=dict)


def cached_tokens(prefix_chars: int, total_tokens: int) -> int:
    tokens = prefix_chars // CHARS_PER_TOKEN
    if tokens < MIN_CACHED:
        return 0
    return min(tokens // BLOCK * BLOCK, total_tokens)


def common_prefix(a: str, b: str) -> int:
    """The length of the common prefix (by bisection: slices compare at C speed)."""
    lo, hi = 0, min(len(a), len(b))
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[:mid] == b[:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


class PrefixCache:
    """Prices a run's requests in order; see the module docstring."""

    def __init__(self) -> None:
        self._root = _Node()

    def price(self, pieces: Sequence[Piece]) -> Priced:
        total = sum(len(text) for _, text in pieces)
        prefix = self._shared(pieces)
        self._insert(pieces)
        tokens = total // CHARS_PER_TOKEN
        return Priced(tokens, cached_tokens(prefix, tokens))

    def _shared(self, pieces: Sequence[Piece]) -> int:
        node, chars = self._root, 0
        for piece in pieces:
            child = node.children.get(piece)
            if child is None:
                where, text = piece
                partial = [
                    common_prefix(text, other) for tag, other in node.children if tag == where
                ]
                return chars + max(partial, default=0)
            node, chars = child, chars + len(piece[1])
        return chars

    def _insert(self, pieces: Sequence[Piece]) -> None:
        node = self._root
        for piece in pieces:
            node = node.children.setdefault(piece, _Node())


def price_run(requests: Sequence[Sequence[Piece]]) -> list[Priced]:
    cache = PrefixCache()
    return [cache.price(pieces) for pieces in requests]
