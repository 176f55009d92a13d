"""Unified diffs for showing a proposed change."""

from __future__ import annotations

import difflib


def unified_diff(old: str, new: str, path: str, *, context: int = 3) -> str:
    """A unified diff of two texts; empty when they are equal."""
    lines = difflib.unified_diff(
        old.splitlines(keepends=True),
        new.splitlines(keepends=True),
        fromfile=f"a/{path}" if old else "/dev/null",
        tofile=f"b/{path}",
        n=context,
    )
    out: list[str] = []
    for line in lines:
        out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(out)


SHOWN_DIFF_LINES = 200  # an auto-approved edit's diff, as shown to the user


def bounded_diff(diff: str, *, limit: int = SHOWN_DIFF_LINES) -> str:
    """`diff` cut to `limit` lines (with a note of what was left out), ending in a newline."""
    lines = diff.splitlines()
    if len(lines) > limit:
        lines = [*lines[:limit], f"… {len(lines) - limit} more diff lines not shown"]
    return "\n".join(lines) + "\n"
