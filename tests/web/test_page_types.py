"""The web page's wire types are generated from the schemas pycline ships, and kept current."""

from __future__ import annotations

import runpy
from pathlib import Path

GENERATOR = Path(__file__).resolve().parents[2] / "tools" / "web" / "wire_types.py"


def test_the_pages_wire_types_match_the_shipped_schemas() -> None:
    generator = runpy.run_path(str(GENERATOR))
    for source in generator["FILES"]:
        target, text = generator["render"](source)
        written = (generator["OUT"] / target).read_text(encoding="utf-8")
        assert written == text, f"{target} is out of date: run python tools/web/wire_types.py"


def test_every_event_the_schema_names_is_a_member_of_the_pages_event_type() -> None:
    generator = runpy.run_path(str(GENERATOR))
    events = next(name for name in generator["FILES"] if name.startswith("events."))
    _, text = generator["render"](events)
    union = next(line for line in text.splitlines() if line.startswith("export type Event ="))
    assert "EventTaskStarted" in union and "EventQuestionAsked" in union
    assert "export interface EventTaskEnded {" in text
