"""A corpus of realistic model edits, generated deterministically from the files in sources/.

Each case is a file, a diff as a model would send it (with one typical flaw), and the intended
result: the file with the change the model meant, or None when the only right answer is to
refuse (the diff is ambiguous, incomplete, or edits lines that no longer exist as written).

How a case is built: pick a span of the file, make a true change in it (edit, insert or delete
a line), write the diff a careful model would send, then damage it the way models do.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

SOURCES = Path(__file__).parent / "sources"
PER_CATEGORY = 14

COMMENT = {
    ".py": "#",
    ".yaml": "#",
    ".ts": "//",
    ".go": "//",
    ".rs": "//",
    ".java": "//",
}
NEW_LINE = {
    ".py": 'log.debug("checkpoint {n}")',
    ".ts": 'console.debug("checkpoint {n}");',
    ".go": 'log.Printf("checkpoint {n}")',
    ".rs": 'eprintln!("checkpoint {n}");',
    ".java": 'LOG.fine("checkpoint {n}");',
    ".md": "Note: see checkpoint {n} for details.",
    ".yaml": "# checkpoint {n}",
}


@dataclass(frozen=True, slots=True)
class Case:
    id: str
    category: str
    source: str
    original: str
    diff: str
    intended: str | None  # None: the edit should be refused
    note: str


@dataclass(frozen=True, slots=True)
class Change:
    """File lines [start, stop) become `new`; `touched` are the span offsets the change edits."""

    start: int
    stop: int
    new: tuple[str, ...]
    touched: frozenset[int]


def block(search: list[str], replace: list[str], *, close: bool = True) -> str:
    parts = ["------- SEARCH", *search, "=======", *replace]
    if close:
        parts.append("+++++++ REPLACE")
    return "\n".join(parts)


def apply(lines: list[str], change: Change) -> list[str]:
    return [*lines[: change.start], *change.new, *lines[change.stop :]]


def text(lines: list[str]) -> str:
    return "\n".join(lines)


def indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t"))]


def _key(line: str) -> str:
    return " ".join(line.split())


def occurrences(lines: list[str], span: list[str]) -> int:
    keys = [_key(x) for x in span]
    n = len(keys)
    all_keys = [_key(x) for x in lines]
    return sum(1 for i in range(len(lines) - n + 1) if all_keys[i : i + n] == keys)


def trivial(line: str) -> bool:
    return len(line.strip()) < 4


def pick_span(
    lines: list[str],
    rng: random.Random,
    size: int,
    *,
    indented: bool = False,
    predicate: Callable[[list[str]], bool] | None = None,
) -> int | None:
    starts = list(range(0, len(lines) - size))
    rng.shuffle(starts)
    for start in starts:
        span = lines[start : start + size]
        if trivial(span[0]) or trivial(span[-1]):
            continue
        if sum(1 for x in span if not trivial(x)) < max(2, size - 2):
            continue
        if indented and any(x.strip() and not indent(x) for x in span):
            continue
        if predicate is not None and not predicate(span):
            continue
        if occurrences(lines, span) != 1:
            continue
        return start
    return None


def _edit_line(line: str, suffix: str, rng: random.Random) -> str | None:
    numbers = list(re.finditer(r"(?<![\w.])\d+(?![\w.])", line))
    if numbers and rng.random() < 0.6:
        m = numbers[-1]
        return line[: m.start()] + str(int(m.group()) + 7) + line[m.end() :]
    strings = list(re.finditer(r'"([^"\\]{2,})"', line))
    if strings and rng.random() < 0.7:
        m = strings[0]
        return line[: m.end(1)] + " v2" + line[m.end(1) :]
    comment = COMMENT.get(suffix)
    if comment is not None and not line.rstrip().endswith("\\"):
        return line.rstrip() + f"  {comment} reviewed"
    if suffix == ".md":
        return line.rstrip() + " (updated)"
    return None


def make_change(
    lines: list[str],
    start: int,
    size: int,
    suffix: str,
    rng: random.Random,
    *,
    avoid: frozenset[int] = frozenset(),
    kinds: tuple[str, ...] = ("edit", "edit", "insert", "delete"),
) -> Change | None:
    span = lines[start : start + size]
    choices = [i for i in range(size) if not trivial(span[i]) and i not in avoid]
    rng.shuffle(choices)
    kind = rng.choice(kinds)
    if suffix == ".json":
        kind = "edit"
    for i in choices:
        if kind == "edit":
            new_line = _edit_line(span[i], suffix, rng)
            if new_line is None or new_line == span[i]:
                continue
            new = [*span[:i], new_line, *span[i + 1 :]]
            return Change(start, start + size, tuple(new), frozenset({i}))
        if kind == "insert" and i < size - 1:
            template = NEW_LINE.get(suffix)
            if template is None:
                continue
            below = span[i + 1] if span[i + 1].strip() else span[i]
            deeper = span[i].rstrip().endswith(("{", ":", "(", "["))
            pad = (
                indent(below)
                if deeper or len(indent(below)) <= len(indent(span[i]))
                else indent(span[i])
            )
            inserted = pad + template.format(n=rng.randint(1, 99))
            new = [*span[: i + 1], inserted, *span[i + 1 :]]
            return Change(start, start + size, tuple(new), frozenset({i, i + 1}))
        if kind == "delete" and 0 < i < size - 1:
            if span[i].rstrip().endswith(("{", ":", "(", "[")) or span[i].strip() in ("}", ")"):
                continue
            new = [*span[:i], *span[i + 1 :]]
            return Change(start, start + size, tuple(new), frozenset({i - 1, i, i + 1}))
    return None


# --- one generator per category --------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Source:
    name: str
    suffix: str
    lines: list[str]


def load_sources() -> list[Source]:
    out = []
    for path in sorted(SOURCES.iterdir()):
        content = path.read_text(encoding="utf-8")
        out.append(Source(path.name, path.suffix, content.split("\n")))
    return out


Generator = Callable[[Source, random.Random], tuple[str, str, str | None, str] | None]


def _simple(
    src: Source, rng: random.Random, size: int | None = None, *, indented: bool = False
) -> tuple[int, int, Change] | None:
    size = size or rng.randint(3, 5)
    start = pick_span(src.lines, rng, size, indented=indented)
    if start is None:
        return None
    change = make_change(src.lines, start, size, src.suffix, rng)
    if change is None:
        return None
    return start, size, change


def gen_clean(src: Source, rng: random.Random) -> tuple[str, str, str | None, str] | None:
    got = _simple(src, rng)
    if got is None:
        return None
    start, size, change = got
    diff = block(src.lines[start : start + size], list(change.new))
    return text(src.lines), diff, text(apply(src.lines, change)), "exact SEARCH"


def _reframe(lines: list[str], how: str, base: str) -> list[str]:
    out = []
    for line in lines:
        if not line.strip():
            out.append(line)
            continue
        ind = indent(line)
        body = line[len(ind) :]
        if how == "flush":
            out.append(line[len(base) :] if line.startswith(base) else body)
        elif how == "half":
            out.append(" " * (len(ind.expandtabs(4)) // 2) + body)
        else:  # "deeper"
            out.append("    " + line)
    return out


def gen_wrong_indentation(
    src: Source, rng: random.Random
) -> tuple[str, str, str | None, str] | None:
    if src.suffix in (".md", ".json"):
        return None
    got = _simple(src, rng, indented=True)
    if got is None:
        return None
    start, size, change = got
    span = src.lines[start : start + size]
    base = min((indent(x) for x in span if x.strip()), key=len)
    how = rng.choice(["flush", "flush", "half", "deeper"])
    if how == "half" and "\t" in base:
        how = "flush"
    if src.suffix == ".yaml" and how != "flush":
        how = "flush"
    diff = block(_reframe(span, how, base), _reframe(list(change.new), how, base))
    note = {
        "flush": "indentation dropped",
        "half": "2-space steps for 4",
        "deeper": "one level too deep",
    }[how]
    return text(src.lines), diff, text(apply(src.lines, change)), note


def gen_stale_context(src: Source, rng: random.Random) -> tuple[str, str, str | None, str] | None:
    size = rng.randint(4, 6)
    start = pick_span(src.lines, rng, size)
    if start is None:
        return None
    change = make_change(src.lines, start, size, src.suffix, rng, kinds=("edit", "edit", "insert"))
    if change is None:
        return None
    span = src.lines[start : start + size]
    conflict = rng.random() < 0.25 and len(change.touched) == 1 and len(change.new) == size
    if conflict:
        # The line the model edits has itself changed in the file: refuse.
        stale_at = min(change.touched)
        if stale_at >= size or trivial(span[stale_at]):
            return None
        note = "the edited line changed since it was read"
    else:
        others = [i for i in range(size) if i not in change.touched and not trivial(span[i])]
        if not others:
            return None
        stale_at = rng.choice(others)
        note = "a context line changed since it was read"
    newer = _edit_line(span[stale_at], src.suffix, random.Random(rng.random()))
    if newer is None or newer == span[stale_at]:
        return None
    file_lines = list(src.lines)
    file_lines[start + stale_at] = newer
    diff = block(span, list(change.new))
    if conflict:
        return text(file_lines), diff, None, note
    new_span = list(change.new)
    # The change keeps the context line: in the intended result it has the file's newer text.
    new_index = [i for i, line in enumerate(new_span) if line == span[stale_at]]
    if len(new_index) != 1:
        return None
    new_span[new_index[0]] = newer
    intended = [*file_lines[:start], *new_span, *file_lines[start + size :]]
    return text(file_lines), diff, text(intended), note


def gen_crlf(src: Source, rng: random.Random) -> tuple[str, str, str | None, str] | None:
    got = gen_clean(src, rng)
    if got is None:
        return None
    original, diff, intended, _ = got
    assert intended is not None
    return (
        original.replace("\n", "\r\n"),
        diff,
        intended.replace("\n", "\r\n"),
        "CRLF file, LF diff",
    )


def _to_tabs(line: str, unit: int) -> str:
    ind = indent(line)
    if "\t" in ind or not ind:
        return line
    width = len(ind)
    return "\t" * (width // unit) + " " * (width % unit) + line[width:]


def gen_tabs(src: Source, rng: random.Random) -> tuple[str, str, str | None, str] | None:
    if src.suffix not in (".go", ".ts", ".java", ".rs"):
        return None
    unit = 2 if src.suffix == ".ts" else 4  # the file's own indentation step
    file_lines = [_to_tabs(x, unit) for x in src.lines]
    tab_src = Source(src.name, src.suffix, file_lines)
    got = _simple(tab_src, rng, indented=True)
    if got is None:
        return None
    start, size, change = got
    span = file_lines[start : start + size]
    spaces = [x.expandtabs(unit) for x in span]
    new_spaces = [x.expandtabs(unit) for x in change.new]
    return (
        text(file_lines),
        block(spaces, new_spaces),
        text(apply(file_lines, change)),
        "tabs file, spaces diff",
    )


def gen_missing_lines(src: Source, rng: random.Random) -> tuple[str, str, str | None, str] | None:
    size = rng.randint(5, 7)
    start = pick_span(src.lines, rng, size)
    if start is None:
        return None
    span = src.lines[start : start + size]
    change = make_change(src.lines, start, size, src.suffix, rng, kinds=("edit", "edit", "insert"))
    if change is None:
        return None
    omit = [
        i
        for i in range(1, size - 1)
        if i not in change.touched and not trivial(span[i]) and (i - 1) not in change.touched
    ]
    if not omit:
        return None
    gone = rng.choice(omit)
    new_span = list(change.new)
    kept_line = span[gone]
    if new_span.count(kept_line) != 1:
        return None
    search = [x for i, x in enumerate(span) if i != gone]
    replace = [x for x in new_span if x != kept_line]
    return (
        text(src.lines),
        block(search, replace),
        text(apply(src.lines, change)),
        "SEARCH skips a line",
    )


def _repeated_spans(lines: list[str], size: int) -> list[tuple[tuple[str, ...], list[int]]]:
    spans: dict[tuple[str, ...], list[int]] = {}
    for i in range(len(lines) - size + 1):
        span = lines[i : i + size]
        if not trivial(span[0]) and len("".join(span).strip()) >= 8:
            spans.setdefault(tuple(span), []).append(i)
    return sorted((k, v) for k, v in spans.items() if len(v) >= 2)


def gen_duplicated(src: Source, rng: random.Random) -> tuple[str, str, str | None, str] | None:
    variant = rng.choice(["ambiguous", "ambiguous", "ambiguous", "ordered", "ordered", "anchors"])
    if variant == "anchors":
        return _dup_anchors(src, rng)
    lines = src.lines
    size = rng.choice([1, 1, 2, 3])
    repeated = _repeated_spans(lines, size)
    if not repeated:
        return None
    span_t, places = rng.choice(repeated)
    if variant == "ambiguous":
        target = rng.choice(places)
        change = make_change(lines, target, size, src.suffix, rng, kinds=("edit",))
        if change is None:
            return None
        which = places.index(target) + 1
        note = f"SEARCH found {len(places)} times (meant #{which})"
        return text(lines), block(list(span_t), list(change.new)), None, note
    # "ordered": an earlier block sits between the last two places, so file order settles it.
    target = places[-1]
    lo, hi = places[-2] + size, target
    inside = [
        start
        for start in range(lo, hi - 2)
        if not trivial(lines[start])
        and not trivial(lines[start + 2])
        and occurrences(lines, lines[start : start + 3]) == 1
    ]
    if not inside:
        return None
    first = rng.choice(inside)
    change_first = make_change(lines, first, 3, src.suffix, rng, kinds=("edit",))
    change_dup = make_change(lines, target, size, src.suffix, rng, kinds=("edit",))
    if change_first is None or change_dup is None:
        return None
    diff = (
        block(lines[first : first + 3], list(change_first.new))
        + "\n"
        + block(list(span_t), list(change_dup.new))
    )
    intended = apply(apply(lines, change_dup), change_first)
    note = f"second SEARCH found {len(places)} times; only the last follows the first block"
    return text(lines), diff, text(intended), note


def _dup_anchors(src: Source, rng: random.Random) -> tuple[str, str, str | None, str] | None:
    """First and last lines repeat elsewhere at the same distance; one context line is stale."""
    lines = src.lines
    size = rng.randint(4, 5)
    by_anchor: dict[tuple[str, str], list[int]] = {}
    for i in range(len(lines) - size + 1):
        first, last = lines[i].strip(), lines[i + size - 1].strip()
        if len(first) >= 3 and len(last) >= 1:
            by_anchor.setdefault((first, last), []).append(i)
    groups = sorted(v for v in by_anchor.values() if len(v) >= 2)
    if not groups:
        return None
    places = rng.choice(groups)
    target = rng.choice(places)
    span = lines[target : target + size]
    if occurrences(lines, span) != 1:
        return None
    change = make_change(lines, target, size, src.suffix, rng, kinds=("edit",))
    if change is None or (change.touched & {0, size - 1}):
        return None
    middle = [i for i in range(1, size - 1) if i not in change.touched and not trivial(span[i])]
    if not middle:
        return None
    stale_at = rng.choice(middle)
    older = _edit_line(span[stale_at], src.suffix, random.Random(rng.random()))
    if older is None or older == span[stale_at]:
        return None
    # The model read an older version of one context line; the file has the current one.
    search = [older if i == stale_at else x for i, x in enumerate(span)]
    replace = [older if i == stale_at else x for i, x in enumerate(change.new)]
    which = places.index(target) + 1
    note = f"first/last lines repeat {len(places)} times (meant #{which}); one context line stale"
    return text(lines), block(search, replace), text(apply(lines, change)), note


def gen_out_of_order(src: Source, rng: random.Random) -> tuple[str, str, str | None, str] | None:
    size = rng.randint(3, 4)
    first = pick_span(src.lines, rng, size)
    second = pick_span(src.lines, rng, size)
    if first is None or second is None or abs(first - second) < size + 2:
        return None
    a, b = sorted((first, second))
    change_a = make_change(src.lines, a, size, src.suffix, rng)
    change_b = make_change(src.lines, b, size, src.suffix, rng)
    if change_a is None or change_b is None:
        return None
    span_a, span_b = src.lines[a : a + size], src.lines[b : b + size]
    new_a = list(change_a.new)
    note = "blocks in reverse file order"
    if (
        src.suffix not in (".md", ".json")
        and all(indent(x) for x in span_a if x.strip())
        and rng.random() < 0.5
    ):
        base = min((indent(x) for x in span_a if x.strip()), key=len)
        span_a, new_a = _reframe(span_a, "flush", base), _reframe(new_a, "flush", base)
        note += "; the earlier block lost its indentation"
    diff = block(span_b, list(change_b.new)) + "\n\n" + block(span_a, new_a)
    intended = apply(apply(src.lines, change_b), change_a)
    return text(src.lines), diff, text(intended), note


def gen_truncated(src: Source, rng: random.Random) -> tuple[str, str, str | None, str] | None:
    mode = rng.choice(["no_replace_marker", "cut_in_search", "cut_in_search", "elided"])
    if mode == "elided":
        size = rng.randint(8, 10)
        start = pick_span(src.lines, rng, size)
        if start is None:
            return None
        span = src.lines[start : start + size]
        change = make_change(src.lines, start, size, src.suffix, rng, kinds=("edit",))
        if change is None or not (change.touched <= {0, 1, size - 2, size - 1}):
            return None
        comment = COMMENT.get(src.suffix)
        if comment is None:
            return None
        elision = indent(span[2]) + f"{comment} ..."
        search = [*span[:2], elision, *span[-2:]]
        new = list(change.new)
        replace = [*new[:2], elision, *new[-2:]]
        return (
            text(src.lines),
            block(search, replace),
            text(apply(src.lines, change)),
            "middle elided with '...'",
        )
    got = _simple(src, rng)
    if got is None:
        return None
    start, size, change = got
    span = src.lines[start : start + size]
    if mode == "no_replace_marker":
        diff = block(span, list(change.new), close=False)
        return (
            text(src.lines),
            diff,
            text(apply(src.lines, change)),
            "closing REPLACE marker missing",
        )
    cut = rng.randint(1, size - 1)
    diff = "\n".join(["------- SEARCH", *span[:cut]])
    return text(src.lines), diff, None, "reply cut off inside the SEARCH"


SMART = str.maketrans({"“": '"', "”": '"', "‘": "'", "’": "'", "—": "-"})


def gen_smart_quotes(src: Source, rng: random.Random) -> tuple[str, str, str | None, str] | None:
    lines = src.lines
    has_smart = [i for i, x in enumerate(lines) if x != x.translate(SMART)]
    if not has_smart:
        return None
    anchor = rng.choice(has_smart)
    size = rng.randint(3, 5)
    for start in range(max(0, anchor - size + 1), anchor + 1):
        span = lines[start : start + size]
        if (
            len(span) < size
            or trivial(span[0])
            or trivial(span[-1])
            or occurrences(lines, span) != 1
        ):
            continue
        avoid = frozenset(i for i, x in enumerate(span) if x != x.translate(SMART))
        change = make_change(
            lines, start, size, src.suffix, rng, avoid=avoid, kinds=("edit", "insert")
        )
        if change is None:
            continue
        search = [x.translate(SMART) for x in span]
        replace = [x.translate(SMART) for x in change.new]
        return (
            text(lines),
            block(search, replace),
            text(apply(lines, change)),
            "SEARCH has plain quotes",
        )
    return None


def gen_line_numbers(src: Source, rng: random.Random) -> tuple[str, str, str | None, str] | None:
    got = _simple(src, rng)
    if got is None:
        return None
    start, size, change = got
    span = src.lines[start : start + size]
    style = rng.choice(["bar", "bar", "cat", "colon"])

    def number(i: int, line: str) -> str:
        n = start + i + 1
        if style == "bar":
            return f"{n} | {line}"
        if style == "cat":
            return f"{n:>6}\t{line}"
        return f"{n}: {line}"

    search = [number(i, x) for i, x in enumerate(span)]
    return (
        text(src.lines),
        block(search, list(change.new)),
        text(apply(src.lines, change)),
        f"line numbers ({style})",
    )


def gen_trailing_whitespace(
    src: Source, rng: random.Random
) -> tuple[str, str, str | None, str] | None:
    got = _simple(src, rng)
    if got is None:
        return None
    start, size, change = got
    span = src.lines[start : start + size]
    file_lines = list(src.lines)
    context = [i for i in range(size) if i not in change.touched and span[i].strip()]
    if not context:
        return None
    padded = rng.sample(context, k=min(len(context), rng.randint(1, 2)))
    new_span = list(change.new)
    for i in padded:
        pad = rng.choice(["  ", " ", "\t", "    "])
        file_lines[start + i] = span[i] + pad
        where = [k for k, x in enumerate(new_span) if x == span[i]]
        if len(where) != 1:
            return None
        new_span[where[0]] = span[i] + pad
    intended = [*file_lines[:start], *new_span, *file_lines[start + size :]]
    return (
        text(file_lines),
        block(span, list(change.new)),
        text(intended),
        "file has trailing spaces",
    )


GENERATORS: dict[str, Generator] = {
    "clean": gen_clean,
    "wrong_indentation": gen_wrong_indentation,
    "stale_context": gen_stale_context,
    "crlf": gen_crlf,
    "tabs": gen_tabs,
    "missing_lines": gen_missing_lines,
    "duplicated_anchors": gen_duplicated,
    "out_of_order": gen_out_of_order,
    "truncated": gen_truncated,
    "smart_quotes": gen_smart_quotes,
    "line_numbers": gen_line_numbers,
    "trailing_whitespace": gen_trailing_whitespace,
}


def build(
    per_category: int = PER_CATEGORY, extra: Mapping[str, Generator] | None = None
) -> list[Case]:
    sources = load_sources()
    cases: list[Case] = []
    for category, generate in {**GENERATORS, **(extra or {})}.items():
        made: list[Case] = []
        seen: set[str] = set()
        for seed in _seeds():
            if len(made) >= per_category:
                break
            src = sources[seed % len(sources)]
            rng = random.Random(f"{category}:{seed}")
            got = generate(src, rng)
            if got is None:
                continue
            original, diff, intended, note = got
            if diff in seen:
                continue
            seen.add(diff)
            made.append(
                Case(
                    f"{category}-{len(made) + 1:02d}",
                    category,
                    src.name,
                    original,
                    diff,
                    intended,
                    note,
                )
            )
        cases.extend(made)
    return cases


def _seeds() -> Iterator[int]:
    yield from range(5000)
