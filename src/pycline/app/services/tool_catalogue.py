"""What front ends know about tools: each tool's facts (effect, Cline's titles, the editor's kind),
from the tool specs, by name.

The specs are the only source; front ends never keep their own name lists. A tool this build does
not know (an older task's, a custom agent's) gets the facts its name implies, or none.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from typing import Any

from pycline.tools.base import ToolFacts, ToolSpec

UNKNOWN = ToolFacts()


@functools.cache
def builtin_specs() -> tuple[ToolSpec, ...]:
    """Every tool this build can offer (whether a given task offers it depends on its settings)."""
    from pycline.tools.browser import BROWSER_SPEC
    from pycline.tools.command import EXECUTE_COMMAND_SPEC
    from pycline.tools.definitions import LIST_DEFINITIONS_SPEC
    from pycline.tools.edit import REPLACE_IN_FILE_SPEC, WRITE_TO_FILE_SPEC
    from pycline.tools.handoff import CONDENSE_SPEC, NEW_RULE_SPEC, NEW_TASK_SPEC, SUBAGENTS_SPEC
    from pycline.tools.interaction import COMPLETION_SPEC, FOLLOWUP_SPEC, VERIFY_GOAL_SPEC
    from pycline.tools.listing import LIST_FILES_SPEC
    from pycline.tools.mcp_tools import ACCESS_MCP_RESOURCE_SPEC, USE_MCP_TOOL_SPEC
    from pycline.tools.plan import PLAN_SPEC
    from pycline.tools.read import READ_FILE_SPEC
    from pycline.tools.search import SEARCH_FILES_SPEC
    from pycline.tools.skills import USE_SKILL_SPEC
    from pycline.tools.web_fetch import WEB_FETCH_SPEC

    return (
        EXECUTE_COMMAND_SPEC,
        READ_FILE_SPEC,
        WRITE_TO_FILE_SPEC,
        REPLACE_IN_FILE_SPEC,
        SEARCH_FILES_SPEC,
        LIST_FILES_SPEC,
        LIST_DEFINITIONS_SPEC,
        FOLLOWUP_SPEC,
        COMPLETION_SPEC,
        PLAN_SPEC,
        WEB_FETCH_SPEC,
        NEW_RULE_SPEC,
        CONDENSE_SPEC,
        NEW_TASK_SPEC,
        SUBAGENTS_SPEC,
        USE_SKILL_SPEC,
        USE_MCP_TOOL_SPEC,
        ACCESS_MCP_RESOURCE_SPEC,
        BROWSER_SPEC,
        VERIFY_GOAL_SPEC,
    )


@functools.cache
def _builtin() -> dict[str, ToolFacts]:
    return {spec.name: spec.facts for spec in builtin_specs()}


def facts_of(name: str) -> ToolFacts:
    """The facts of the tool called `name` (UNKNOWN: a tool this build does not know)."""
    from pycline.parsing.vocab import AGENT_TOOL_PREFIX
    from pycline.tools.handoff import AGENT_FACTS

    found = _builtin().get(name)
    if found is not None:
        return found
    return AGENT_FACTS if name.startswith(AGENT_TOOL_PREFIX) else UNKNOWN


def catalogue(specs: Iterable[ToolSpec] = ()) -> dict[str, ToolFacts]:
    """Name → facts for every built-in tool and `specs` (a task's own, custom agents')."""
    return {**_builtin(), **{spec.name: spec.facts for spec in specs}}


def catalogue_json(specs: Iterable[ToolSpec] = ()) -> dict[str, dict[str, Any]]:
    """The catalogue as front ends receive it (the web page gets it when it connects)."""
    return {
        name: {
            "effect": f.effect,
            "title": f.title,
            "done_title": f.done_title,
            "label": f.label,
            "kind": f.kind,
            "checkpointed": f.checkpointed,
            "read_only": f.read_only,
            "conversational": f.conversational,
        }
        for name, f in catalogue(specs).items()
    }
