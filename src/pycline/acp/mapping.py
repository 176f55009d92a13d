"""pycline tool calls as ACP tool calls: kind, title, locations and the checklist as a plan.

Kept apart from the wire code so a new protocol version changes one module.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, TypeAlias

from pycline.core import focus_chain

ToolKind: TypeAlias = Literal[
    "read", "edit", "delete", "move", "search", "execute", "think", "fetch", "switch_mode", "other"
]
PlanStatus: TypeAlias = Literal["pending", "in_progress", "completed"]

_KINDS: dict[str, ToolKind] = {
    "read_file": "read",
    "list_files": "read",
    "list_code_definition_names": "read",
    "access_mcp_resource": "read",
    "write_to_file": "edit",
    "replace_in_file": "edit",
    "search_files": "search",
    "execute_command": "execute",
    "web_fetch": "fetch",
    "browser_action": "fetch",
    "plan_mode_respond": "switch_mode",
    "act_mode_respond": "switch_mode",
    "ask_followup_question": "think",
    "attempt_completion": "think",
}

_TITLES: dict[str, str] = {
    "read_file": "Read {path}",
    "list_files": "List {path}",
    "list_code_definition_names": "Definitions in {path}",
    "write_to_file": "Write {path}",
    "replace_in_file": "Edit {path}",
    "search_files": "Search {regex} in {path}",
    "execute_command": "Run {command}",
    "web_fetch": "Fetch {url}",
    "access_mcp_resource": "Read {uri} ({server_name})",
    "use_mcp_tool": "{server_name}: {tool_name}",
    "browser_action": "Browser: {action} {url}",
}


def tool_kind(tool: str) -> ToolKind:
    return _KINDS.get(tool, "other")


def tool_title(tool: str, params: Mapping[str, str]) -> str:
    template = _TITLES.get(tool)
    if template is None:
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


def tool_locations(tool: str, params: Mapping[str, str], root: Path) -> list[Location]:
    """The files a call touches, absolute, with the first line when the call names one."""
    raw = params.get("path")
    if not raw or tool not in _KINDS or tool_kind(tool) not in ("read", "edit", "search"):
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
    for done, text in focus_chain.items(markdown):
        if done:
            plan.append(PlanItem(text, "completed"))
        elif not started:
            started = True
            plan.append(PlanItem(text, "in_progress"))
        else:
            plan.append(PlanItem(text, "pending"))
    return plan
