"""The system-prompt section about connected MCP servers (SPEC §5, §13).

Compact on purpose: every request pays for it. Schemas are one-line JSON without the `$schema`
and `title` noise the SDKs add; servers that are not connected are left out.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from pycline.mcp.model import ServerState

_NOISE_KEYS = frozenset({"$schema", "title"})
_SCHEMA_MAPS = frozenset({"properties", "patternProperties", "$defs", "definitions"})
_SUBSCHEMAS = frozenset(
    {"items", "additionalProperties", "anyOf", "oneOf", "allOf", "not", "prefixItems", "contains"}
)

INTRO = (
    "MCP SERVERS\n\n"
    "Connected Model Context Protocol servers add tools and data. Call a server's tool with "
    "use_mcp_tool (server_name, tool_name, arguments as a JSON object matching the tool's input "
    "schema) and read a resource with access_mcp_resource (server_name, uri). A resource "
    "template's {placeholders} are filled in to form a URI."
)


def compact_schema(schema: Any) -> Any:
    """The schema without keys that cost tokens and tell the model nothing (`$schema`, `title`).

    Only schema positions are visited: a property that happens to be named `title`, or a
    `default` value holding such a key, is kept.
    """
    if isinstance(schema, list):
        return [compact_schema(v) for v in schema]
    if not isinstance(schema, Mapping):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key in _NOISE_KEYS:
            continue
        if key in _SCHEMA_MAPS and isinstance(value, Mapping):
            out[key] = {name: compact_schema(sub) for name, sub in value.items()}
        elif key in _SUBSCHEMAS:
            out[key] = compact_schema(value)
        else:
            out[key] = value
    return out


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _server_block(state: ServerState) -> str:
    lines = [f"## {state.name}"]
    if state.instructions.strip():
        lines.append(_one_line(state.instructions))
    if state.tools:
        lines.append("\n### Tools")
        for tool in state.tools:
            desc = f": {_one_line(tool.description)}" if tool.description else ""
            schema = json.dumps(compact_schema(tool.input_schema), ensure_ascii=False)
            lines.append(f"- {tool.name}{desc}\n  Input schema: {schema}")
    if state.templates:
        lines.append("\n### Resource templates")
        for tpl in state.templates:
            desc = f": {_one_line(tpl.description)}" if tpl.description else ""
            lines.append(f"- {tpl.uri_template} ({tpl.name}){desc}")
    if state.resources:
        lines.append("\n### Resources")
        for res in state.resources:
            desc = f": {_one_line(res.description)}" if res.description else ""
            lines.append(f"- {res.uri} ({res.name}){desc}")
    if len(lines) == 1:
        lines.append("(no tools or resources)")
    return "\n".join(lines)


def mcp_prompt_section(servers: Iterable[ServerState]) -> str:
    """The section text, or "" when no server is connected (the section is then omitted)."""
    connected = [s for s in servers if s.status == "connected"]
    if not connected:
        return ""
    return "\n\n".join([INTRO, *(_server_block(s) for s in connected)])
