"""A task's event log (`events.jsonl`): what its front ends were shown, one event per line.

The log is the task's only record of what happened on screen: every front end replays a task
from it, and Cline's `ui_messages.json` is written from it (storage.cline_ui). It is append-only
and never folded away. A line is an event in its wire form (`pycline.event_wire`), or a note
that is not an event:

- `{"note": "base", "ui": N}`: the first N messages of `ui_messages.json` were written before
  this log existed (a task of an earlier pycline); they come before the events.
- `{"note": "position", "index": I, "ts": T}`: the conversation position of the checkpoint on
  the line before (the model's message it follows; what restoring the task cuts back to).
- `{"note": "ui", "m": {...}}`: a message of Cline's log that is not an event (the tally of the
  requests a restore removed).

A line that cannot be read (a write torn by a kill) is skipped; the lines around it still count.
A log none of whose lines can be read is damaged, and reported.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, TypeAlias

from pycline.errors import StorageError
from pycline.event_wire import WireError, envelope_from_json, envelope_json
from pycline.events import Envelope
from pycline.parsing.surrogates import clean
from pycline.storage.atomic import atomic_write_bytes
from pycline.storage.journal import open_for_append as open_for_append

EVENTS: Final = "events.jsonl"


@dataclass(frozen=True, slots=True)
class Note:
    kind: str  # "base" | "position" | "ui"
    data: Mapping[str, Any]


Entry: TypeAlias = Envelope | Note


def dumps(entry: Entry) -> bytes:
    data = (
        envelope_json(entry) if isinstance(entry, Envelope) else {"note": entry.kind, **entry.data}
    )
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n"
    try:
        return text.encode()
    except UnicodeEncodeError:
        # A lone surrogate that got past the edges has no UTF-8 form: saved as U+FFFD, as the
        # journal saves it, the line stays readable.
        return clean(text).encode()


def note(kind: str, **data: Any) -> Note:
    return Note(kind, data)


def read(path: Path) -> list[Entry]:
    """The log's entries; StorageError when it holds lines but none can be read (damaged)."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return []
    except OSError as exc:
        raise StorageError(f"{path} cannot be read: {exc.strerror}") from exc
    entries = list(parse(raw.split(b"\n")))
    if not entries and raw.strip():
        raise StorageError(f"{path} is corrupt: none of its lines can be read.")
    return entries


def parse(lines: Iterable[bytes]) -> Iterator[Entry]:
    for line in lines:
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except (json.JSONDecodeError, UnicodeDecodeError, RecursionError):
            continue  # torn by a kill, or damaged: the rest of the log still reads
        if not isinstance(data, dict):
            continue
        kind = data.get("note")
        if isinstance(kind, str):
            yield Note(kind, {k: v for k, v in data.items() if k != "note"})
            continue
        try:
            yield envelope_from_json(data)
        except WireError:
            continue  # an event of a newer pycline: this one cannot show it


def base_count(entries: Sequence[Entry]) -> int:
    """How many messages of `ui_messages.json` predate the log (0 for a task born with it)."""
    for entry in entries:
        if isinstance(entry, Note) and entry.kind == "base":
            count = entry.data.get("ui")
            return count if isinstance(count, int) and count >= 0 else 0
    return 0


def rewrite(path: Path, entries: Iterable[Entry]) -> None:
    """Replace the log (a restore cut the task back; no task is running)."""
    atomic_write_bytes(path, b"".join(dumps(e) for e in entries))
