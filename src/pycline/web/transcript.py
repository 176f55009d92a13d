"""A saved task as the page's wire events: the same events it showed live, from the task's log
(`pycline.app.services.tasks.Tasks.transcript`), so a reopened task is drawn by the same code as a live
one."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pycline.events import Envelope
from pycline.web.wire import event_json


def saved_events(events: Sequence[Envelope], *, before_seq: int = 1) -> list[dict[str, Any]]:
    """The events in wire form, numbered so the last is `before_seq - 1` (a run that goes on
    after them numbers its own events from 1)."""
    start = before_seq - len(events)
    return [{**event_json(e), "seq": start + i} for i, e in enumerate(events)]
