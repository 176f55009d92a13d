"""Saying each thing once on a terminal: repeated notices, an error already shown (a start-up
notice seen in an earlier session: `app.notices.first_time`)."""

from __future__ import annotations

import re
from pathlib import Path

# A notice that repeats this much of the previous one (a retry countdown) shows only what changed.
_SHARED_PREFIX = 40


class Shown:
    """What this session has already put on the screen."""

    def __init__(self) -> None:
        self._notices: set[str] = set()
        self._last_notice = ""
        self.errors: set[str] = set()

    def notice(self, text: str) -> str | None:
        """The part of `text` worth printing; None when it was all said already."""
        if text in self._notices:
            return None
        self._notices.add(text)
        previous, self._last_notice = self._last_notice, text
        shared = next(
            (i for i, (a, b) in enumerate(zip(previous, text, strict=False)) if a != b),
            min(len(previous), len(text)),
        )
        if shared < _SHARED_PREFIX:
            return text
        # Show the changed clause whole: from the last " — " (else the last word) before it.
        cut = text.rfind(" — ", 0, shared)
        start = cut + 3 if cut >= 0 else text.rfind(" ", 0, shared) + 1
        return "  … " + text[start:]

    def error(self, text: str) -> None:
        self.errors.add(text.strip())

    def already(self, reason: str) -> bool:
        return reason.strip() in self.errors


def missing_line(missing: list[str], width: int) -> str:
    """One line naming what is off here and pointing to `pycline doctor`, never wider than
    the terminal (the parenthesised reasons go first, then words from the end)."""
    if not missing:
        return ""
    tail = " · `pycline doctor` says how to fix"
    line = "; ".join(missing) + tail
    if len(line) >= width:
        line = "; ".join(re.sub(r" \(.*?\)", "", item) for item in missing) + tail
    if len(line) >= width:
        line = line[: max(width - 2, 0)] + "…"
    return line


def fit_path(path: Path, room: int) -> str:
    """`path` in at most `room` characters: ~ for the home folder, then … for its start."""
    text = str(path)
    home = str(Path.home())
    if text == home or text.startswith(home + "/"):
        text = "~" + text[len(home) :]
    if len(text) > room > 1:
        text = "…" + text[len(text) - room + 1 :]
    return text
