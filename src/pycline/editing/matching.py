"""Finding where a SEARCH block is in the file.

Stages, strictest first, each over the lines after the previous block (blocks come in file
order) and then, like Cline's out-of-order fallback, before it:

1. exact        whole lines, byte for byte (Cline's exact match, minus mid-line matches)
2. trimmed      each line equal once leading/trailing whitespace is ignored (Cline)
3. normalized   also typographic quotes, odd spaces, inner whitespace runs
4. anchor       first and last lines match, same length (Cline's block anchor), middle aligned
5. elided       a SEARCH with `// ...` lines standing for unchanged code (kept in REPLACE):
                its pieces match in order and the elided lines stay as they are
then, over the whole file, a fuzzy search (fuzzy.py). Line-number prefixes copied from
read_file output are tried as a variant of the SEARCH at every stage.

A stage that finds several places does not pick one: the ambiguity is an error unless the
evidence settles it (the copied line number, or later blocks with the same SEARCH that will
consume the other places in order, or a clearly better anchor match).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from pycline.editing.fuzzy import acceptable
from pycline.editing.merge import align, pair_modified
from pycline.editing.normalize import normalized, trimmed
from pycline.editing.regions import (
    KEY_FUNCS,
    Candidate,
    FileLines,
    KeyKind,
    Stage,
    clearly_better,
)

LINE_STAGES: tuple[KeyKind, ...] = ("exact", "trimmed", "normalized")


@dataclass(frozen=True, slots=True)
class Variant:
    """The SEARCH/REPLACE lines as used for matching (raw, or without copied line numbers)."""

    search: tuple[str, ...]
    replace: tuple[str, ...]
    first_line: int | None = None  # the copied line number of the first SEARCH line


class Ambiguous(Exception):
    def __init__(self, candidates: Sequence[Candidate]) -> None:
        super().__init__("ambiguous")
        self.candidates = tuple(sorted(candidates, key=lambda c: c.start))


def full_line_matches(file: FileLines, search: Sequence[str], kind: KeyKind) -> list[Candidate]:
    if not search:
        return []
    func = KEY_FUNCS[kind]
    keys = [func(line) for line in search]
    file_keys = file.keys(kind)
    n = len(keys)
    found: list[Candidate] = []
    for i in file.positions(kind, keys[0]):
        if i + n <= len(file_keys) and file_keys[i : i + n] == keys:
            found.append(Candidate(i, i + n, tuple((k, i + k) for k in range(n)), kind))
    return found


def anchor_matches(file: FileLines, search: Sequence[str]) -> list[Candidate]:
    n = len(search)
    if n < 3:
        return []
    first, last = trimmed(search[0]), trimmed(search[-1])
    file_keys = file.keys("trimmed")
    norm_keys = file.keys("normalized")
    search_norm = [normalized(line) for line in search]
    found: list[Candidate] = []
    for i in file.positions("trimmed", first):
        if i + n > len(file_keys) or file_keys[i + n - 1] != last:
            continue
        pairs = {s: i + r for s, r in align(search_norm, norm_keys[i : i + n]).items()}
        modified = pair_modified(search_norm, norm_keys, pairs, lo=i, hi=i + n)
        candidate = Candidate(
            i,
            i + n,
            tuple(sorted(pairs.items())),
            "anchor",
            _similarity(search_norm, norm_keys[i : i + n]),
            tuple(sorted(modified.items())),
        )
        # Cline takes any block whose first and last lines match; the middle must resemble
        # the SEARCH too, or `return None ... return None` lands in the wrong function.
        if acceptable(candidate, search):
            found.append(candidate)
    return found


def _similarity(a: Sequence[str], b: Sequence[str]) -> float:
    from rapidfuzz import fuzz

    return round(fuzz.ratio("\n".join(a), "\n".join(b)) / 100, 4)


# `...`, `// ...`, `# ... existing code ...`, `/* ... */`, `<!-- … -->`
ELISION = re.compile(
    r"^\s*(?:(?://|#|/\*|<!--|--|;)\s*)?(?:\.\.\.|…)[\w\s,'()-]*(?:\.\.\.|…)?\s*(?:\*/|-->)?\s*$"
)


MAX_ELIDED = 300  # lines one elision may stand for


def is_elision(line: str) -> bool:
    return bool(ELISION.match(line))


def elided_matches(file: FileLines, variant: Variant) -> list[Candidate]:
    search = variant.search
    marks = [i for i, line in enumerate(search) if is_elision(line)]
    if not marks:
        return []
    kept = {normalized(line) for line in variant.replace if is_elision(line)}
    if any(normalized(search[i]) not in kept for i in marks):
        return []  # REPLACE drops what the elision stands for: we cannot know what that is
    pieces: list[tuple[int, list[str]]] = []
    start = 0
    for mark in [*marks, len(search)]:
        if mark > start:
            pieces.append((start, list(search[start:mark])))
        start = mark + 1
    if len(pieces) < 2:
        return []
    found: list[Candidate] = []
    for head in full_line_matches(file, pieces[0][1], "normalized"):
        pairs = [(pieces[0][0] + k, head.start + k) for k in range(len(pieces[0][1]))]
        end = head.stop
        for offset, piece in pieces[1:]:
            later = [
                c
                for c in full_line_matches(file, piece, "normalized")
                if end <= c.start <= end + MAX_ELIDED
            ]
            if not later:
                break
            nxt = min(later, key=lambda c: c.start)
            pairs.extend((offset + k, nxt.start + k) for k in range(len(piece)))
            end = nxt.stop
        else:
            found.append(Candidate(head.start, end, tuple(pairs), "elided", 1.0))
    return found


def stage_matches(file: FileLines, stage: Stage, variant: Variant) -> list[Candidate]:
    if stage == "anchor":
        return anchor_matches(file, variant.search)
    if stage == "elided":
        return elided_matches(file, variant)
    if stage == "fuzzy":
        raise ValueError("fuzzy matches come from fuzzy.similar_regions")
    return full_line_matches(file, variant.search, stage)


def choose(
    pool: Sequence[Candidate],
    *,
    stage: Stage,
    variant: Variant,
    same_search_blocks: int,
    in_order: bool,
    strict: bool,
) -> Candidate:
    """Pick the one candidate the evidence supports, or raise Ambiguous."""
    ordered = sorted(pool, key=lambda c: c.start)
    if len(ordered) == 1:
        return ordered[0]
    if variant.first_line is not None:
        at_line = [c for c in ordered if c.start + 1 == variant.first_line]
        if len(at_line) == 1:
            return at_line[0]
    if in_order and stage in LINE_STAGES and same_search_blocks >= len(ordered):
        # This block and the later ones with the same SEARCH take the places in file order.
        return ordered[0]
    if stage == "anchor":
        ranked = sorted(ordered, key=lambda c: -c.score)
        if clearly_better(ranked[0].score, ranked[1].score):
            return ranked[0]
    if not strict:
        return ordered[0]  # a provisional pick while streaming; the final call decides
    raise Ambiguous(ordered)
