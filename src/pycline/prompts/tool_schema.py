"""Tool specs as native tool definitions (JSON schema), the shapes Cline sends.

Every parameter is a string, as in XML calls, except the few Cline types as boolean or integer;
the model's non-string values come back as their JSON text, which the tools already parse.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from pycline.parsing.native import ToolDefinition
from pycline.prompts.system import ToolDoc

_TYPES: Final[dict[str, str]] = {
    "requires_approval": "boolean",
    "recursive": "boolean",
    "needs_more_exploration": "boolean",
    "timeout": "integer",
    "start_line": "integer",
    "end_line": "integer",
}

# Tools without the focus chain's `task_progress` parameter (Cline's list): a command's or a
# hand-off's own output carries the progress instead.
NO_TASK_PROGRESS: Final = frozenset(
    {"execute_command", "browser_action", "new_task", "use_skill", "use_subagents"}
)
# Repeated in every tool's schema, so kept short (the first message explains the checklist).
# No `additionalProperties: false` either: without strict mode it only costs tokens, and calls
# with unknown parameters are ignored field by field anyway.
TASK_PROGRESS_DOC: Final = "The task's checklist: - [ ] todo / - [x] done."


def definition(tool: ToolDoc) -> ToolDefinition:
    properties: dict[str, Any] = {}
    required: list[str] = []
    for p in tool.params:
        properties[p.name] = {"type": _TYPES.get(p.name, "string"), "description": p.description}
        if p.required:
            required.append(p.name)
    if tool.name not in NO_TASK_PROGRESS and "task_progress" not in properties:
        properties["task_progress"] = {"type": "string", "description": TASK_PROGRESS_DOC}
    schema: dict[str, Any] = {
        "type": "object",
        "properties": properties,
        "required": required,
    }
    return ToolDefinition(tool.name, tool.description.strip(), schema)


def definitions(tools: Sequence[ToolDoc]) -> tuple[ToolDefinition, ...]:
    return tuple(definition(t) for t in tools)
