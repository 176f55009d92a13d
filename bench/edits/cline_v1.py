"""The baseline: Cline's classic SEARCH/REPLACE algorithm (its "v1" constructor), ported as-is.

Kept in bench/ only, to measure pycline's engine against it. It reproduces Cline's semantics
(SPEC §4, pinned by conformance/cline/diff_search_replace.json), quirks included:
matching per block from the end of the previous one: exact substring, then line-by-line
trimmed, then block anchor (first/last line + same length), then exact from the file start;
the REPLACE text is pasted verbatim; a SEARCH without ======= is silently ignored.
"""

from __future__ import annotations

import re

_SEARCH = re.compile(r"^(?:-{3,}|<{3,}) SEARCH>?$")
_SEP = re.compile(r"^={3,}$")
_REPLACE = re.compile(r"^(?:\+{3,}|>{3,}) REPLACE>?$")


class ClineDiffError(Exception):
    pass


def _start_line(original_lines: list[str], start_index: int) -> int:
    line, current = 0, 0
    while current < start_index and line < len(original_lines):
        current += len(original_lines[line]) + 1
        line += 1
    return line


def _span(original_lines: list[str], first: int, count: int) -> tuple[int, int]:
    start = sum(len(original_lines[k]) + 1 for k in range(first))
    end = start + sum(len(original_lines[first + k]) + 1 for k in range(count))
    return start, end


def _line_trimmed(original: str, search: str, start_index: int) -> tuple[int, int] | None:
    original_lines = original.split("\n")
    search_lines = search.split("\n")
    if search_lines[-1] == "":
        search_lines.pop()
    first = _start_line(original_lines, start_index)
    for i in range(first, len(original_lines) - len(search_lines) + 1):
        if all(
            original_lines[i + j].strip() == search_lines[j].strip()
            for j in range(len(search_lines))
        ):
            return _span(original_lines, i, len(search_lines))
    return None


def _block_anchor(original: str, search: str, start_index: int) -> tuple[int, int] | None:
    original_lines = original.split("\n")
    search_lines = search.split("\n")
    if len(search_lines) < 3:
        return None
    if search_lines[-1] == "":
        search_lines.pop()
    first_search = search_lines[0].strip()
    last_search = search_lines[-1].strip()
    size = len(search_lines)
    first = _start_line(original_lines, start_index)
    for i in range(first, len(original_lines) - size + 1):
        if original_lines[i].strip() != first_search:
            continue
        if original_lines[i + size - 1].strip() != last_search:
            continue
        return _span(original_lines, i, size)
    return None


def apply_cline_v1(original: str, diff: str, *, is_final: bool = True) -> str:
    replacements: list[tuple[int, int, str]] = []
    last_processed = 0
    search = replace = ""
    in_search = in_replace = False
    match_start = match_end = -1
    out_of_order = False

    lines = diff.split("\n")
    last = lines[-1] if lines else ""
    if (
        lines
        and last[:1] in ("-", "<", "=", "+", ">")
        and not (_SEARCH.match(last) or _SEP.match(last) or _REPLACE.match(last))
    ):
        lines.pop()

    for line in lines:
        if _SEARCH.match(line):
            in_search, search, replace = True, "", ""
            continue
        if _SEP.match(line):
            in_search, in_replace = False, True
            if not search:
                if not original:
                    match_start = match_end = 0
                else:
                    raise ClineDiffError("Empty SEARCH block detected with non-empty file.")
            else:
                exact = original.find(search, last_processed)
                if exact != -1:
                    match_start, match_end = exact, exact + len(search)
                else:
                    found = _line_trimmed(original, search, last_processed) or _block_anchor(
                        original, search, last_processed
                    )
                    if found is not None:
                        match_start, match_end = found
                    else:
                        anywhere = original.find(search)
                        if anywhere == -1:
                            raise ClineDiffError(
                                f"The SEARCH block:\n{search.rstrip()}\n"
                                "...does not match anything in the file."
                            )
                        match_start, match_end = anywhere, anywhere + len(search)
            if match_start < last_processed:
                out_of_order = True
            continue
        if _REPLACE.match(line):
            if match_start == -1:
                raise ClineDiffError(f"The SEARCH block:\n{search.rstrip()}\n...is malformatted.")
            replacements.append((match_start, match_end, replace))
            if not out_of_order:
                last_processed = match_end
            in_search = in_replace = False
            search = replace = ""
            match_start = match_end = -1
            out_of_order = False
            continue
        if in_search:
            search += line + "\n"
        elif in_replace:
            replace += line + "\n"

    if is_final and in_replace and match_start != -1:
        replacements.append((match_start, match_end, replace))
    replacements.sort(key=lambda r: r[0])
    parts: list[str] = []
    pos = 0
    for start, end, text in replacements:
        parts.append(original[pos:start])
        parts.append(text)
        pos = end
    parts.append(original[pos:])
    return "".join(parts)
