"""The task's progress checklist (Cline's focus chain): Markdown `- [ ]` / `- [x]` lines."""

from __future__ import annotations

import re
from typing import Final

from pycline.events import TaskProgress

ITEM: Final = re.compile(r"^- \[( |x|X)\] ")


def items(checklist: str) -> list[tuple[bool, str]]:
    """(done, text) for each checklist line; other lines are ignored, as in Cline."""
    out: list[tuple[bool, str]] = []
    for line in checklist.splitlines():
        line = line.strip()
        if ITEM.match(line):
            out.append((line[3] in "xX", line[6:].strip()))
    return out


def progress_event(checklist: str) -> TaskProgress:
    listed = items(checklist)
    done = sum(1 for d, _ in listed if d)
    current = next((text for d, text in listed if not d), "")
    return TaskProgress(checklist, done, len(listed), current)
