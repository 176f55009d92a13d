"""Applying a block's change to a region that matches its SEARCH only approximately.

The model's SEARCH (S) and REPLACE (P) describe a change: the lines P keeps from S are context,
the rest is the edit. When S matches the file region (R) only line-by-line tolerantly, or with
lines missing or stale, we do not paste P over R (Cline does, which silently reverts whatever
differs). We apply the S→P change to R, like a patch with context:

- a context line is written as the file has it (its whitespace, quotes, newer content);
- a changed line must be present in the file as S shows it, otherwise the file has moved on
  since the model read it and the edit is refused (a conflict, never a guess);
- file lines the SEARCH did not show are kept where they are, unless the edit would change a
  span that contains them;
- new lines are re-indented into the file's frame (see indentation.py), relative to the
  nearest matched line whose indentation is closest to theirs: a line the model wrote as a
  sibling of a matched line lands exactly where that line is in the file, even when the rest of
  the region is indented inconsistently.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher

from pycline.editing.indentation import (
    TAB_WIDTH,
    IndentMap,
    estimate,
    indent_of,
    render,
    uses_tabs,
    width,
)
from pycline.editing.normalize import normalized


@dataclass(frozen=True, slots=True)
class Conflict:
    """Why a tolerant match cannot take the edit; indices are into S and into the region."""

    reason: str
    search_index: int | None = None
    region_index: int | None = None


class MergeConflict(Exception):
    def __init__(self, conflict: Conflict) -> None:
        super().__init__(conflict.reason)
        self.conflict = conflict


def align(search_keys: Sequence[str], region_keys: Sequence[str]) -> dict[int, int]:
    """Pairs of equal keys, in order: S index -> region index."""
    matcher = SequenceMatcher(None, list(search_keys), list(region_keys), autojunk=False)
    pairs: dict[int, int] = {}
    for a, b, size in matcher.get_matching_blocks():
        for k in range(size):
            pairs[a + k] = b + k
    return pairs


SIMILAR = 60.0  # rapidfuzz ratio for a changed line to still count as "the same line"


def pair_modified(
    search_keys: Sequence[str],
    file_keys: Sequence[str],
    pairs: Mapping[int, int],
    *,
    lo: int,
    hi: int,
) -> dict[int, int]:
    """SEARCH lines the file has in a changed form: between two exactly matched lines (or just
    before the first / after the last), paired by position when the line counts agree and
    the lines are alike. File indices are absolute; [lo, hi) bounds them."""
    from rapidfuzz import fuzz

    ordered = sorted(pairs.items())
    if not ordered:
        return {}
    gaps: list[tuple[list[int], list[int]]] = []
    s0, r0 = ordered[0]
    lead = min(s0, r0 - lo)
    gaps.append((list(range(s0 - lead, s0)), list(range(r0 - lead, r0))))
    for (sa, ra), (sb, rb) in itertools.pairwise(ordered):
        gaps.append((list(range(sa + 1, sb)), list(range(ra + 1, rb))))
    s1, r1 = ordered[-1]
    trail = min(len(search_keys) - 1 - s1, hi - 1 - r1)
    gaps.append((list(range(s1 + 1, s1 + 1 + trail)), list(range(r1 + 1, r1 + 1 + trail))))
    found: dict[int, int] = {}
    for s_gap, r_gap in gaps:
        if not s_gap or len(s_gap) != len(r_gap):
            continue
        for s, r in zip(s_gap, r_gap, strict=True):
            a, b = search_keys[s], file_keys[r]
            if a and b and fuzz.ratio(a, b) >= SIMILAR:
                found[s] = r
    return found


def _stray(model_indent: str, file_indent: str) -> bool:
    """One column off towards an odd indentation in the file: a stray space, not a level worth
    copying (see indentation.estimate)."""
    return (
        abs(len(file_indent) - len(model_indent)) == 1
        and "\t" not in file_indent + model_indent
        and len(file_indent) % 2 == 1
    )


@dataclass(frozen=True, slots=True)
class _Placer:
    """Indents a new line relative to a matched SEARCH line (its anchor) in the file."""

    search: Sequence[str]
    region: Sequence[str]
    pairs: Mapping[int, int]
    mapping: IndentMap
    suffix: str

    def place(self, line: str, candidates: Sequence[int]) -> str:
        """`line` in the file's frame. A line indented like one of the matched `candidates` is
        its sibling and takes that line's indentation in the file. Otherwise the region's map
        applies, unless the closest candidate is an outlier to that map: then the line keeps
        its offset from that candidate, as its neighbour in the file."""
        if not line.strip():
            return line + self.suffix
        indent = indent_of(line)
        tab = self.mapping.tab
        model_width = width(indent, tab)
        scored: list[tuple[int, int]] = []
        for s in candidates:
            r = self.pairs.get(s)
            if r is not None and self.search[s].strip() and self.region[r].strip():
                scored.append((abs(width(indent_of(self.search[s]), tab) - model_width), s))
        if not scored:
            return self.mapping.apply(line) + self.suffix
        closest = min(d for d, _ in scored)
        nearest = [s for d, s in scored if d == closest]
        if closest == 0:
            return self._relative(line, nearest[0])
        if any(self._follows_map(s) for s in nearest):
            return self.mapping.apply(line) + self.suffix
        return self._relative(line, nearest[0])

    def place_run(self, lines: Sequence[str], candidates: Sequence[int]) -> list[str]:
        """Consecutive new lines: the first is placed among the matched lines, each next one
        keeps its offset from the line above it, so a new block keeps its own shape."""
        out: list[str] = []
        previous: tuple[str, str] | None = None  # (model indent, placed indent)
        for line in lines:
            if previous is None or not line.strip():
                placed = self.place(line, candidates)
            else:
                placed = self._offset(line, *previous)
            out.append(placed)
            if line.strip():
                previous = (indent_of(line), indent_of(placed))
        return out

    def _follows_map(self, s: int) -> bool:
        file_line = _strip_cr(self.region[self.pairs[s]])
        tab = self.mapping.tab
        mapped = width(indent_of(self.mapping.apply(self.search[s])), tab)
        return mapped == width(indent_of(file_line), tab)

    def _relative(self, line: str, anchor: int) -> str:
        anchor_model = indent_of(self.search[anchor])
        anchor_file = indent_of(_strip_cr(self.region[self.pairs[anchor]]))
        if _stray(anchor_model, anchor_file):
            anchor_file = anchor_model
        return self._offset(line, anchor_model, anchor_file)

    def _offset(self, line: str, anchor_model: str, anchor_file: str) -> str:
        indent = indent_of(line)
        if indent == anchor_model:
            return anchor_file + line[len(indent) :] + self.suffix
        tab = self.mapping.tab
        columns = width(anchor_file, tab) + round(
            self.mapping.scale * (width(indent, tab) - width(anchor_model, tab))
        )
        tabs = self.mapping.tabs if self.mapping.tabs is not None else "\t" in indent
        return render(max(0, columns), tabs=tabs, tab=tab) + line[len(indent) :] + self.suffix


def _nearest(pairs: Mapping[int, int], start: int, stop: int) -> list[int]:
    """Matched SEARCH lines inside [start, stop), then the closest before and after."""
    inside = [s for s in range(start, stop) if s in pairs]
    before = [s for s in pairs if s < start]
    after = [s for s in pairs if s >= stop]
    return [*inside, *([max(before)] if before else []), *([min(after)] if after else [])]


def _strip_cr(line: str) -> str:
    return line[:-1] if line.endswith("\r") else line


def indent_map(
    search: Sequence[str],
    region: Sequence[str],
    pairs: Mapping[int, int],
    *,
    file_style: bool | None,
    tab: int = TAB_WIDTH,
    replace: Sequence[str] = (),
) -> IndentMap:
    """How the model's indentation relates to the file's, from the SEARCH lines it matched.

    REPLACE lines are no evidence of the relation: a kept line whose indentation changed was
    moved on purpose (wrapped in a new block, say), and must move by the same amount in the
    file's frame. They do show the model's indentation step (`replace`).
    """
    style = uses_tabs(region)
    if style is None:
        style = file_style
    matched = [(search[s], _strip_cr(region[r])) for s, r in pairs.items()]
    return estimate(matched, style, tab=tab, model_lines=replace)


def merge(
    search: Sequence[str],
    replace: Sequence[str],
    region: Sequence[str],
    pairs: Mapping[int, int],
    *,
    modified: Mapping[int, int] | None = None,
    file_style: bool | None = None,
    tab: int = TAB_WIDTH,
) -> list[str]:
    """The region's new lines. Raises MergeConflict when the change cannot be placed safely.

    `pairs`: SEARCH lines equal to region lines; `modified`: SEARCH lines the region has in a
    changed form (both map SEARCH index -> region index).
    """
    changed = dict(modified or {})
    mapping = indent_map(search, region, pairs, file_style=file_style, tab=tab, replace=replace)
    cr_lines = sum(1 for line in region if line.endswith("\r"))
    suffix = "\r" if region and cr_lines * 2 > len(region) else ""

    placer = _Placer(search, region, pairs, mapping, suffix)

    known = sorted({**changed, **pairs}.items())
    out: list[str] = []
    pos = 0  # next region line not yet written
    matcher = SequenceMatcher(
        None, [normalized(s) for s in search], [normalized(p) for p in replace], autojunk=False
    )
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            for k in range(i2 - i1):
                s, p = i1 + k, j1 + k
                r = pairs.get(s, changed.get(s))
                if r is None:
                    continue  # context the file no longer has: nothing to keep
                out.extend(region[pos:r])
                pos = r + 1
                same_as_file = replace[p] == _strip_cr(region[r])
                if s in changed or replace[p] == search[s] or same_as_file:
                    out.append(region[r])  # the file's own version of a line the edit keeps
                else:
                    out.append(mapping.apply(replace[p]) + suffix)
            continue
        if tag == "insert":
            following = next((r for s, r in known if s >= i1), len(region))
            gap = region[pos:following]
            if any(line.strip() for line in gap):
                raise MergeConflict(
                    Conflict(
                        "the file has lines here that the SEARCH does not show, so where the "
                        "new lines go is ambiguous",
                        search_index=i1,
                        region_index=pos,
                    )
                )
            out.extend(placer.place_run(replace[j1:j2], _nearest(pairs, i1, i1)))
            continue
        stale = [s for s in range(i1, i2) if s in changed]
        if stale:
            raise MergeConflict(
                Conflict(
                    "the file has changed a line the edit changes, since the SEARCH was written",
                    search_index=stale[0],
                    region_index=changed[stale[0]],
                )
            )
        missing = [s for s in range(i1, i2) if s not in pairs]
        if tag == "replace" and missing:
            raise MergeConflict(
                Conflict(
                    "the edit changes a line the file does not contain as written",
                    search_index=missing[0],
                )
            )
        aligned = [(s, pairs[s]) for s in range(i1, i2) if s in pairs]
        if aligned:
            first, last = aligned[0][1], aligned[-1][1]
            out.extend(region[pos:first])
            used = {r for _, r in aligned}
            for r in range(first, last + 1):
                if r not in used and region[r].strip():
                    raise MergeConflict(
                        Conflict(
                            "the file has a line inside the changed span that the SEARCH does "
                            "not show",
                            search_index=aligned[0][0],
                            region_index=r,
                        )
                    )
            pos = last + 1
        if tag == "replace" and i2 - i1 == j2 - j1:
            # Line for line: a line whose indentation the model kept keeps the file's.
            for s, p in zip(range(i1, i2), range(j1, j2), strict=True):
                model = replace[p]
                if indent_of(model) == indent_of(search[s]):
                    out.append(placer.place(model, [s]))
                else:
                    out.append(mapping.apply(model) + suffix)
            continue
        out.extend(placer.place_run(replace[j1:j2], _nearest(pairs, i1, i2)))
    out.extend(region[pos:])
    return out
