"""The file as lines (split on `\\n` only, like Cline) and the regions a SEARCH may match."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal, TypeAlias

from pycline.editing.normalize import normalized, trimmed

Stage: TypeAlias = Literal["exact", "trimmed", "normalized", "anchor", "elided", "fuzzy"]
KeyKind: TypeAlias = Literal["exact", "trimmed", "normalized"]

KEY_FUNCS: dict[KeyKind, Callable[[str], str]] = {
    "exact": lambda line: line,
    "trimmed": trimmed,
    "normalized": normalized,
}


@dataclass(frozen=True, slots=True)
class Candidate:
    """File lines [start, stop) matched by a SEARCH; `pairs` maps SEARCH lines to file lines."""

    start: int
    stop: int
    pairs: tuple[tuple[int, int], ...]
    stage: Stage
    score: float = 1.0
    # SEARCH lines the file has in a changed form (stale context), paired by position.
    modified: tuple[tuple[int, int], ...] = ()

    def overlaps(self, start: int, stop: int) -> bool:
        if self.start == self.stop or start == stop:
            return start < self.start < stop or self.start < start < self.stop
        return self.start < stop and start < self.stop


@dataclass(slots=True)
class FileLines:
    text: str
    lines: list[str] = field(init=False)
    offsets: list[int] = field(init=False)
    _keys: dict[KeyKind, list[str]] = field(init=False, default_factory=dict)
    _index: dict[KeyKind, dict[str, list[int]]] = field(init=False, default_factory=dict)

    def __post_init__(self) -> None:
        self.lines = self.text.split("\n")
        offsets = [0]
        for line in self.lines:
            offsets.append(offsets[-1] + len(line) + 1)
        self.offsets = offsets

    def __len__(self) -> int:
        return len(self.lines)

    def keys(self, kind: KeyKind) -> list[str]:
        if kind not in self._keys:
            func = KEY_FUNCS[kind]
            self._keys[kind] = [func(line) for line in self.lines]
        return self._keys[kind]

    def positions(self, kind: KeyKind, key: str) -> list[int]:
        if kind not in self._index:
            index: dict[str, list[int]] = {}
            for i, k in enumerate(self.keys(kind)):
                index.setdefault(k, []).append(i)
            self._index[kind] = index
        return self._index[kind].get(key, [])

    def offset(self, line: int) -> int:
        """Character offset where a line starts; past the end means the end of the text."""
        return min(self.offsets[line], len(self.text))


def clearly_better(best: float, second: float) -> bool:
    """One similarity score beats another when the gap is real: the runner-up is at least
    twice as far from a perfect match, and a few points lower."""
    return best - second >= 0.03 and (1 - second) >= 2 * (1 - best)
