"""Notices a front end shows once per home: a start-up notice (the browser is off, what is
missing here) already seen in an earlier session is not shown again until its text changes."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from pycline.storage.atomic import atomic_write_json


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
