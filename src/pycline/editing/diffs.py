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
