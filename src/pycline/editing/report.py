"""Error messages for failed blocks, written so that the model's next attempt succeeds.

Each message starts with Cline's own wording (models and the conformance vectors know it),
then says which block failed, shows the closest region of the file with line numbers, and how
the SEARCH differs from it.
"""

from __future__ import annotations

from collections.abc import Sequence
from difflib import SequenceMatcher

from pycline.editing.indentation import indent_of
from pycline.editing.markers import EXAMPLE_SEARCH
from pycline.editing.normalize import has_smart_punctuation, normalized
from pycline.editing.regions import Candidate, FileLines

MAX_SHOWN = 40
EMPTY_SEARCH = (
    "Empty SEARCH block detected with non-empty file. This usually indicates a malformed SEARCH "
    "marker.\nPlease ensure your SEARCH marker follows the correct format:\n"
    "- Use '------- SEARCH' (7+ dashes + space + SEARCH)\n"
)


def _search_text(search: Sequence[str]) -> str:
    return "\n".join(search).rstrip()


def _which(index: int, total: int) -> str:
    if total <= 1:
        return "This was the only block; the file was not changed."
    return (
        f"This was block {index + 1} of {total}. No block was applied: an edit is applied "
        "whole or not at all, so resend every block."
    )


def numbered(file: FileLines, start: int, stop: int) -> str:
    width = len(str(stop))
    return "\n".join(
        f"{i + 1:>{width}} | {file.lines[i].rstrip(chr(13))}"
        for i in range(max(0, start), min(stop, len(file.lines)))
    )


def _differences(search: Sequence[str], region: Sequence[str]) -> list[str]:
    out: list[str] = []
    matcher = SequenceMatcher(None, list(search), [r.rstrip("\r") for r in region], autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        out.extend(f"- {line}" for line in search[i1:i2])
        out.extend(f"+ {line.rstrip(chr(13))}" for line in region[j1:j2])
    return out


def _hints(search: Sequence[str], region: Sequence[str]) -> list[str]:
    hints: list[str] = []
    pairs = list(zip(search, region, strict=False))
    if any(s.strip() == r.strip() and s != r.rstrip("\r") for s, r in pairs):
        hints.append("Some lines differ only in leading or trailing whitespace (indentation).")
    if any("\t" in indent_of(r) for r in region) and not any("\t" in indent_of(s) for s in search):
        hints.append("The file indents with tabs; your SEARCH uses spaces.")
    if any(has_smart_punctuation(r) for r in region) != any(
        has_smart_punctuation(s) for s in search
    ):
        hints.append("Quotes or dashes differ (typographic vs plain).")
    s_keys = {normalized(s) for s in search if s.strip()}
    r_keys = {normalized(r) for r in region if r.strip()}
    missing = [s for s in search if s.strip() and normalized(s) not in r_keys]
    extra = [r for r in region if r.strip() and normalized(r) not in s_keys]
    if missing:
        hints.append(
            f"{len(missing)} line(s) of your SEARCH are not in the file here, e.g. "
            f"{missing[0].strip()!r}; the file may have changed since you read it."
        )
    if extra and not missing:
        hints.append(
            f"The file has {len(extra)} line(s) here that your SEARCH leaves out, e.g. "
            f"{extra[0].strip()!r}; copy the lines exactly, without skipping any."
        )
    return hints


def closest_region(file: FileLines, search: Sequence[str], closest: Candidate | None) -> str:
    if closest is None:
        return "No region of the file resembles it; re-read the file before editing it."
    start, stop = closest.start, closest.stop
    if closest.pairs:
        # Show the whole place the SEARCH would cover, not only its lines that matched.
        s0, r0 = closest.pairs[0]
        start = max(0, min(start, r0 - s0))
        stop = min(len(file.lines), max(stop, start + len(search)))
    region = file.lines[start:stop]
    from rapidfuzz import fuzz

    similarity = fuzz.ratio(
        "\n".join(normalized(s) for s in search), "\n".join(normalized(r) for r in region)
    )
    parts = [
        f"The closest region of the file is lines {start + 1}-{stop} "
        f"({round(similarity)}% similar):",
        numbered(file, start, min(stop, start + MAX_SHOWN)),
    ]
    diffs = _differences(search, region)
    if diffs:
        parts.append("How your SEARCH differs (- your SEARCH, + the file):")
        parts.append("\n".join(diffs[:MAX_SHOWN]))
    hints = _hints(search, region)
    if hints:
        parts.append("\n".join(f"Note: {h}" for h in hints))
    return "\n".join(parts)


def no_match(
    search: Sequence[str],
    index: int,
    total: int,
    file: FileLines,
    closest: Candidate | None,
    *,
    overlapping_block: int | None = None,
    replace: Sequence[str] = (),
) -> str:
    head = f"The SEARCH block:\n{_search_text(search)}\n...does not match anything in the file."
    parts = [head, "", _which(index, total)]
    if overlapping_block is not None:
        parts.append(
            f"Its text is only found inside the region block {overlapping_block + 1} already "
            "changes; merge the two blocks into one."
        )
    else:
        # A change made already (a model sending its applied edit again), or new code written as
        # a replacement of its own first line: each says more than the closest region does.
        parts.append(
            _the_example(search)
            or _made_already(search, replace, file)
            or _as_addition(search, replace, file)
            or closest_region(file, search, closest)
        )
    parts.append(
        "The SEARCH must repeat the file's current lines exactly, complete lines only. "
        "Use fewer, smaller blocks, and re-read the file if it may have changed."
    )
    return "\n".join(parts)


def _content(lines: Sequence[str]) -> list[str]:
    """The lines with text, stripped (what a block says, indentation and blank lines aside)."""
    return [line.strip() for line in lines if line.strip()]


def _the_example(search: Sequence[str]) -> str:
    """For the tool description's example block sent as if it were this file's."""
    if _content(search) != [EXAMPLE_SEARCH.strip()]:
        return ""
    return (
        f"Your SEARCH (`{EXAMPLE_SEARCH.strip()}`) is the example from the tool's description, not "
        "a line of this file. Copy the lines you change from the file's current content, exactly."
    )


# The fewest characters (spaces apart) a REPLACE has for its presence in the file to say the
# change was made: a lone `}` or `pass` is everywhere.
MADE_ALREADY_CHARS = 12


def _made_already(search: Sequence[str], replace: Sequence[str], file: FileLines) -> str:
    """For a block whose REPLACE lines the file already has, in a row (indentation aside), and
    its SEARCH nowhere: the change was made, most likely by the model's own earlier edit."""
    wanted = _content(replace)
    if sum(len(w.replace(" ", "")) for w in wanted) < MADE_ALREADY_CHARS:
        return ""
    if wanted == _content(search):
        return ""
    lines = [(n, line.strip()) for n, line in enumerate(file.lines) if line.strip()]
    texts = [text for _, text in lines]
    for i in range(len(texts) - len(wanted) + 1):
        if texts[i : i + len(wanted)] == wanted:
            first, last = lines[i][0] + 1, lines[i + len(wanted) - 1][0] + 1
            where = f"line {first}" if first == last else f"lines {first}-{last}"
            return (
                f"Your REPLACE lines are in the file already ({where}), so this change has been "
                "made, perhaps by your earlier edit. Do not send it again: go on with what the "
                "task still needs, check the change by running it, or call attempt_completion."
            )
    return ""


# The most lines of the file's end a suggested anchor takes to be found only once.
ANCHOR_LINES = 6


def _as_addition(search: Sequence[str], replace: Sequence[str], file: FileLines) -> str:
    """For a block whose REPLACE starts with its SEARCH (new code, the SEARCH its first line:
    a way small models write an addition), the block that adds it at the end of the file."""
    wanted = _content(search)
    head = _content(replace)[: len(wanted)]
    # A header of one or two lines (a signature) that the REPLACE goes on from, perhaps with the
    # brace that opens the body (`func f() int` → `func f() int {`); a longer SEARCH repeated at
    # the top of its REPLACE is a doubled block, not new code.
    starts = len(head) == len(wanted) and all(
        h.startswith(w) for h, w in zip(head, wanted, strict=True)
    )
    if not wanted or len(wanted) > 2 or not starts or len(replace) <= len(search):
        return ""
    lines = file.lines[:]
    while lines and not lines[-1].strip():
        lines.pop()
    if not lines:
        return ""
    text = "\n".join(file.lines)
    anchor: list[str] = []
    for size in range(1, min(ANCHOR_LINES, len(lines)) + 1):
        anchor = lines[-size:]
        if text.count("\n".join(anchor)) == 1:
            break
    block = "\n".join(
        ["------- SEARCH", *anchor, "=======", *anchor, "", *replace, "+++++++ REPLACE"]
    )
    return (
        "Your REPLACE starts with your SEARCH, so this looks like new code; but SEARCH must be "
        "lines the file has now. To add the code at the end of the file, send this block:\n" + block
    )


def ambiguous(
    search: Sequence[str], index: int, total: int, file: FileLines, places: Sequence[Candidate]
) -> str:
    where = ", ".join(
        f"line {c.start + 1}" if c.stop - c.start <= 1 else f"lines {c.start + 1}-{c.stop}"
        for c in places[:10]
    )
    more = f" and {len(places) - 10} more" if len(places) > 10 else ""
    shown = "\n\n".join(numbered(file, c.start - 1, c.stop + 1) for c in places[:3])
    return (
        f"The SEARCH block:\n{_search_text(search)}\n...matches {len(places)} places in the file "
        f"({where}{more}), so it is ambiguous and was not applied.\n\n{_which(index, total)}\n"
        f"{shown}\n"
        "Add the neighbouring lines that make the SEARCH unique (for example the enclosing "
        "function's first line), or edit every place with one block each, in file order."
    )


def conflict(
    search: Sequence[str],
    index: int,
    total: int,
    file: FileLines,
    candidate: Candidate,
    reason: str,
    detail: str,
) -> str:
    return "\n".join(
        [
            f"The SEARCH block:\n{_search_text(search)}\n...only approximately matches lines "
            f"{candidate.start + 1}-{candidate.stop}, and {reason}. It was not applied.",
            detail,
            "",
            _which(index, total),
            closest_region(file, search, candidate),
            "Re-read the file and send a SEARCH that copies its current lines.",
        ]
    )


def malformed(message: str, index: int, total: int, stray: Sequence[str]) -> str:
    parts = [message, "", _which(index, max(total, index + 1))]
    if stray:
        parts.append("These lines look like markers but are not exactly right: " + "; ".join(stray))
    parts.append(
        "Each block is:\n------- SEARCH\n[exact lines from the file]\n=======\n[new lines]\n"
        "+++++++ REPLACE\nMarker lines must contain nothing else (no trailing spaces)."
    )
    return "\n".join(parts)


def empty_search(index: int, total: int, stray: Sequence[str]) -> str:
    parts = [EMPTY_SEARCH, _which(index, total)]
    if stray:
        parts.append("These lines look like markers but are not exactly right: " + "; ".join(stray))
    parts.append("To replace the whole file, use write_to_file instead.")
    return "\n".join(parts)
