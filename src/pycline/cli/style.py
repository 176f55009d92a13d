"""Minimal ANSI styling (rich is heavier than this front end needs at start-up)."""

from __future__ import annotations

import os
import sys

_CODES = {
    "bold": "1",
    "dim": "2",
    "red": "31",
    "green": "32",
    "yellow": "33",
    "blue": "34",
    "cyan": "36",
}


def enabled() -> bool:
    return sys.stdout.isatty() and "NO_COLOR" not in os.environ


def style(text: str, *names: str) -> str:
    if not enabled() or not names:
        return text
    codes = ";".join(_CODES[n] for n in names)
    return f"\x1b[{codes}m{text}\x1b[0m"


def colour_diff(diff: str) -> str:
    out = []
    for line in diff.splitlines():
        if line.startswith(("+++", "---")):
            out.append(style(line, "bold"))
        elif line.startswith("+"):
            out.append(style(line, "green"))
        elif line.startswith("-"):
            out.append(style(line, "red"))
        elif line.startswith("@@"):
            out.append(style(line, "cyan"))
        else:
            out.append(line)
    return "\n".join(out)
