"""Reading a SEARCH/REPLACE diff into blocks (SPEC §4), also while it is still streaming.

The marker rules are Cline's: `------- SEARCH` (or `<<<<<<< SEARCH`), `=======`,
`+++++++ REPLACE` (or `>>>>>>> REPLACE`), each with 3 or more marker characters and nothing
else on the line. Where Cline silently drops text (a SEARCH with no `=======`, a diff with no
block at all, a block cut short by the next SEARCH marker) we either keep the intent or say
exactly what is wrong.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

SEARCH_START = re.compile(r"^(?:-{3,}|<{3,}) SEARCH>?$")
SEPARATOR = re.compile(r"^={3,}$")
REPLACE_END = re.compile(r"^(?:\+{3,}|>{3,}) REPLACE>?$")

# The block the tool descriptions show as their example. A model that sends it back has copied
# the example, not the file (the report says so).
EXAMPLE_SEARCH = "    port = 8000"
EXAMPLE_REPLACE = "    port = 8080"
EXAMPLE_BLOCK = f"------- SEARCH\n{EXAMPLE_SEARCH}\n=======\n{EXAMPLE_REPLACE}\n+++++++ REPLACE"

_MARKER_WORDS = {"-": " SEARCH>", "<": " SEARCH>", "+": " REPLACE>", ">": " REPLACE>", "=": ""}


def is_marker(line: str) -> bool:
    return bool(SEARCH_START.match(line) or SEPARATOR.match(line) or REPLACE_END.match(line))


def is_marker_prefix(line: str) -> bool:
    """True for a line that could still grow into a marker (`+++++++ REP`, `==`, `-`)."""
    if not line or line[0] not in _MARKER_WORDS:
        return False
    char = line[0]
    rest = line.lstrip(char)
    return rest == "" or (bool(_MARKER_WORDS[char]) and _MARKER_WORDS[char].startswith(rest))


def looks_like_marker(line: str) -> bool:
    """A near miss such as `======= ` or `<<-- SEARCH`, worth pointing out in an error."""
    stripped = line.strip()
    if is_marker(line) or not stripped:
        return False
    if is_marker(stripped):
        return True
    return bool(re.match(r"^[-<=+>]{2,}\s*(SEARCH|REPLACE)?\s*>?$", stripped)) and (
        "SEARCH" in stripped or "REPLACE" in stripped or set(stripped) == {"="}
    )


@dataclass(slots=True)
class Block:
    index: int
    search: list[str]
    replace: list[str]
    has_start: bool = True  # a SEARCH marker opened it (Cline also accepts a bare `=======`)
    has_separator: bool = False
    closed: bool = False  # its REPLACE marker arrived (or the diff is final and it is complete)


@dataclass(frozen=True, slots=True)
class Malformed:
    """The first structural error; blocks before it are still applied first, like Cline."""

    block_index: int
    message: str


@dataclass(frozen=True, slots=True)
class ParsedDiff:
    blocks: tuple[Block, ...]
    malformed: Malformed | None
    stray_markers: tuple[str, ...]  # near-miss marker lines outside any block (for hints)
    outside: tuple[str, ...] = ()  # other non-blank lines after a block, outside any (dropped)


def _malformed_text(search: list[str]) -> str:
    body = "\n".join(search).rstrip()
    return f"The SEARCH block:\n{body}\n...is malformatted."


def parse_diff(diff: str, *, is_final: bool) -> ParsedDiff:
    lines = diff.replace("\r\n", "\n").split("\n")
    if lines and not is_marker(lines[-1]) and is_marker_prefix(lines[-1]):
        # A marker still being streamed (or cut off at the very end): not content.
        lines.pop()

    blocks: list[Block] = []
    stray: list[str] = []
    outside: list[str] = []
    current: Block | None = None

    def start_block(*, has_start: bool) -> Block:
        block = Block(len(blocks), [], [], has_start=has_start)
        blocks.append(block)
        return block

    for line_no, line in enumerate(lines):
        if SEARCH_START.match(line):
            if current is not None and current.has_separator:
                # The previous block lost its REPLACE marker; its intent is still clear.
                current.closed = True
            elif current is not None:
                # A repeated SEARCH marker restarts the search text, as in Cline.
                current.search.clear()
                continue
            current = start_block(has_start=True)
            continue
        if current is None:
            if SEPARATOR.match(line):
                current = start_block(has_start=False)
                current.has_separator = True
            elif REPLACE_END.match(line):
                return ParsedDiff(
                    tuple(blocks), Malformed(len(blocks), _malformed_text([])), tuple(stray)
                )
            elif looks_like_marker(line):
                stray.append(f"line {line_no + 1}: {line!r}")
            elif line.strip() and blocks:
                outside.append(line)
            continue
        if not current.has_separator:
            if SEPARATOR.match(line) and not _later_exact_separator(lines, line_no, line):
                current.has_separator = True
            elif REPLACE_END.match(line):
                blocks.pop()
                stray.extend(
                    f"{earlier!r} in block {current.index + 1}"
                    for earlier in current.search
                    if looks_like_marker(earlier)
                )
                return ParsedDiff(
                    tuple(blocks),
                    Malformed(current.index, _malformed_text(current.search)),
                    tuple(stray),
                )
            else:
                current.search.append(line)
            continue
        if REPLACE_END.match(line):
            current.closed = True
            current = None
            continue
        if SEPARATOR.match(line) or looks_like_marker(line):
            # A second separator (doubled, or written where the REPLACE marker belongs) or a
            # marker with extra characters: guessing the intent would risk writing a marker
            # line into the file.
            blocks.pop()
            return ParsedDiff(
                tuple(blocks),
                Malformed(current.index, _second_separator(current, line)),
                tuple(stray),
            )
        current.replace.append(line)

    if is_final and current is not None:
        if current.has_separator:
            current.closed = True
        else:
            blocks.pop()
            body = "\n".join(current.search).rstrip()
            message = (
                f"The SEARCH block:\n{body}\n...is incomplete: it has no ======= line and no "
                "replacement, so nothing was changed. Send the whole block: SEARCH marker, the "
                "exact lines, =======, the new lines, REPLACE marker."
            )
            return ParsedDiff(tuple(blocks), Malformed(current.index, message), tuple(stray))
    return ParsedDiff(tuple(blocks), None, tuple(stray), tuple(outside))


def _second_separator(block: Block, line: str) -> str:
    search = "\n".join(block.search).rstrip()
    return (
        f"The SEARCH block:\n{search}\n...is malformatted: after its ======= separator the "
        f"replacement has a marker-like line ({line!r}). A block has exactly one ======= and "
        "ends with a +++++++ REPLACE line that has nothing else on it. Nothing was changed: "
        "a marker line is never written into the file. (A file that really needs such a line, "
        "a reStructuredText heading say, can be written whole with write_to_file.)"
    )


def _later_exact_separator(lines: list[str], line_no: int, line: str) -> bool:
    """Inside SEARCH text, a `===` line may be Markdown (a setext heading underline).

    When the same block later has the canonical `=======` before its REPLACE marker, that
    one is the separator and this line is content.
    """
    if line == "=======":
        return False
    for later in lines[line_no + 1 :]:
        if REPLACE_END.match(later) or SEARCH_START.match(later):
            return False
        if later == "=======":
            return True
    return False
