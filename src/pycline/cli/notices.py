"""Saying each thing once: repeated notices, an error already shown, a start-up notice already
seen in an earlier session."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

from pycline.storage.atomic import atomic_write_json

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


def first_time(home: Path, name: str, text: str) -> bool:
    """True once per home for each distinct `text` of notice `name` (e.g. the browser notice)."""
    path = home / "state" / "notices_seen.json"
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]
    try:
        seen = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        seen = {}
    if not isinstance(seen, dict):
        seen = {}
    if seen.get(name) == digest:
        return False
    seen[name] = digest
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_json(path, seen)
    except OSError:
        pass  # a read-only home: the notice comes back next time, nothing worse
    return True
