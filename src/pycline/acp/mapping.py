"""pycline tool calls as ACP tool calls: kind, title, locations and the checklist as a plan.

Kept apart from the wire code so a new protocol version changes one module.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, TypeAlias

from pycline.app.builders.tool_parts import checklist_items
from pycline.app.services.tool_catalogue import facts_of
from pycline.tools.base import ToolFacts, ToolKind

PlanStatus: TypeAlias = Literal["pending", "in_progress", "completed"]


def tool_kind(tool: str, facts: ToolFacts | None = None) -> ToolKind:
    return (facts or facts_of(tool)).kind


def tool_title(tool: str, params: Mapping[str, str], facts: ToolFacts | None = None) -> str:
    template = (facts or facts_of(tool)).label
    if not template:
        return tool.replace("_", " ")
    values = _Defaults({k: " ".join(v.split())[:120] for k, v in params.items()})
    return " ".join(template.format_map(values).split())


class _Defaults(dict[str, str]):
    def __missing__(self, key: str) -> str:
        return ""


@dataclass(frozen=True, slots=True)
class Location:
    path: str  # absolute
    line: int | None = None


def tool_locations(
    tool: str, params: Mapping[str, str], root: Path, facts: ToolFacts | None = None
) -> list[Location]:
    """The files a call touches, absolute, with the first line when the call names one."""
    raw = params.get("path")
    if not raw or tool_kind(tool, facts) not in ("read", "edit", "search"):
        return []
    path = Path(raw.strip()).expanduser()
    if not path.is_absolute():
        path = root / path
    line = _positive_int(params.get("start_line"))
    return [Location(str(path), line)]


def _positive_int(raw: str | None) -> int | None:
    if raw is None or not raw.strip().isdigit():
        return None
    value = int(raw.strip())
    return value if value > 0 else None


# --- the progress checklist (`task_progress`) as an ACP plan -------------------------------------


@dataclass(frozen=True, slots=True)
class PlanItem:
    content: str
    status: PlanStatus


def checklist(markdown: str) -> list[PlanItem]:
    """The core's checklist items; the first open one is the one in progress."""
    plan: list[PlanItem] = []
    started = False
    for done, text in checklist_items(markdown):
        if done:
            plan.append(PlanItem(text, "completed"))
        elif not started:
            started = True
            plan.append(PlanItem(text, "in_progress"))
        else:
            plan.append(PlanItem(text, "pending"))
    return plan
