"""The last matching stage: a region similar to the SEARCH, found with rapidfuzz.

Lines of the SEARCH that resemble file lines vote for where the block starts; the best few
places are aligned line by line and scored by text similarity. The result is used only when
one place is clearly best; the merge (merge.py) then refuses it if the lines the edit changes
are not in the file as the SEARCH shows them.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence

from pycline.editing.merge import align, pair_modified
from pycline.editing.normalize import normalized
from pycline.editing.regions import Candidate, FileLines, clearly_better

LINE_CUTOFF = 72.0  # rapidfuzz ratio (0-100) for two lines to count as alike
MAX_PLACES_PER_LINE = 25  # a line found in more places than this says nothing about location
MAX_VOTERS = 40
ACCEPT_SCORE = 0.72
ACCEPT_ALIGNED = 0.5


def similar_regions(
    file: FileLines,
    search: Sequence[str],
    *,
    excluded: Callable[[Candidate], bool] = lambda c: False,
    limit: int = 4,
) -> list[Candidate]:
    """Regions resembling the SEARCH, best first (score = text similarity 0..1)."""
    from rapidfuzz import fuzz

    keys = [normalized(line) for line in search]
    file_keys = file.keys("normalized")
    n = len(keys)
    if n == 0 or not any(keys):
        return []
    votes: defaultdict[int, float] = defaultdict(float)
    voters = [s for s, key in enumerate(keys) if len(key) >= 3]
    if len(voters) > MAX_VOTERS:  # a huge SEARCH: a spread sample locates it just as well
        step = len(voters) / MAX_VOTERS
        voters = [voters[int(i * step)] for i in range(MAX_VOTERS)]
    for s in voters:
        key = keys[s]
        for index, weight in _line_hits(file, key):
            votes[index - s] += weight
    if not votes:
        return []
    slack = max(2, n // 4)
    starts = sorted(votes, key=lambda start: -votes[start])
    considered: list[int] = []
    found: list[Candidate] = []
    search_text = "\n".join(keys)
    for start in starts:
        if len(found) >= limit * 3 or len(considered) >= limit * 8:
            break
        if any(abs(start - earlier) <= slack for earlier in considered):
            continue
        considered.append(start)
        lo = max(0, start - slack)
        hi = min(len(file_keys), start + n + slack)
        pairs = {s: lo + r for s, r in align(keys, file_keys[lo:hi]).items()}
        modified = pair_modified(keys, file_keys, pairs, lo=0, hi=len(file_keys))
        rows = [*pairs.values(), *modified.values()]
        if rows:
            first, last = min(rows), max(rows)
        else:  # nothing equal, only alike: still worth showing in an error message
            first = max(0, start)
            last = min(len(file_keys), start + n) - 1
        window = "\n".join(file_keys[max(0, start) : max(0, start + n)])
        region = "\n".join(file_keys[first : last + 1])
        candidate = Candidate(
            first,
            last + 1,
            tuple(sorted(pairs.items())),
            "fuzzy",
            round(max(fuzz.ratio(search_text, window), fuzz.ratio(search_text, region)) / 100, 4),
            tuple(sorted(modified.items())),
        )
        if excluded(candidate) or any(c.start == candidate.start for c in found):
            continue
        found.append(candidate)
    found.sort(key=lambda c: -c.score)
    return found[:limit]


def _line_hits(file: FileLines, key: str) -> list[tuple[int, float]]:
    """Where one SEARCH line is in the file, with weights: equal lines first, else the most
    alike ones; a line that is everywhere carries no weight."""
    from rapidfuzz import fuzz, process

    equal = file.positions("normalized", key)
    if equal:
        if len(equal) > MAX_PLACES_PER_LINE:
            return []
        return [(i, len(key) / len(equal)) for i in equal]
    hits = process.extract(
        key, file.keys("normalized"), scorer=fuzz.ratio, score_cutoff=LINE_CUTOFF, limit=None
    )
    if not hits:
        return []
    top = max(score for _choice, score, _index in hits)
    best = [(index, score) for _choice, score, index in hits if score >= top - 3]
    if len(best) > MAX_PLACES_PER_LINE:
        return []
    return [(i, len(key) * score / 100 / len(best)) for i, score in best]


def aligned_share(candidate: Candidate, search: Sequence[str]) -> float:
    keys = [normalized(line) for line in search]
    informative = sum(len(k) for k in keys) or 1
    # A line the file has in a changed form is half the evidence of an equal one.
    equal = sum(len(keys[s]) for s, _ in candidate.pairs)
    changed = sum(len(keys[s]) for s, _ in candidate.modified)
    return (equal + changed / 2) / informative


def acceptable(candidate: Candidate, search: Sequence[str]) -> bool:
    """Enough of the SEARCH is really there: most of it equal and the whole alike, or nearly
    all of it equal (lines the SEARCH skipped make the text less alike, not the place less
    certain)."""
    share = aligned_share(candidate, search)
    if share >= 0.85:
        return candidate.score >= 0.5
    return share >= ACCEPT_ALIGNED and candidate.score >= ACCEPT_SCORE


def pick(
    found: Sequence[Candidate], search: Sequence[str]
) -> Candidate | Sequence[Candidate] | None:
    """The single clearly best region; the tied regions when two are equally good; or None."""
    if not found or len([line for line in search if line.strip()]) < 2:
        return None
    contenders = [c for c in found if acceptable(c, search)]
    if not contenders:
        return None
    best = contenders[0]
    if best is not found[0] and clearly_better(found[0].score, best.score):
        return None  # something else is much more alike: not sure enough
    if len(contenders) > 1 and not clearly_better(best.score, contenders[1].score):
        return contenders[:2]
    return best
