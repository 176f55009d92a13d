"""Custom agents: YAML files in the global agents folder, as Cline's `~/Documents/Cline/Agents/`.

A file `<name>.yaml` (or `.yml`) has front matter (`name` and `description` required; `modelId`,
`tools`, `skills` optional) between `---` lines; the rest is the agent's system prompt. Each agent
becomes a tool `use_subagent_<name>` running it as a read-only sub-agent. Files that cannot be read
or lack a name or description are skipped; two files naming the same agent: the first (by file
name) wins.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from pycline.parsing.vocab import AGENT_TOOL_PREFIX, MAX_AGENT_NAME
from pycline.workspace.confined import read_text
from pycline.workspace.rules import split_front_matter

MAX_AGENT_CHARS: Final = 100_000
_NOT_NAME = re.compile(r"[^a-z0-9_]+")


@dataclass(frozen=True, slots=True)
class CustomAgent:
    name: str
    description: str
    instructions: str  # the body: the agent's system prompt
    model_id: str | None = None
    tools: frozenset[str] | None = None  # None: every read-only tool
    skills: tuple[str, ...] = ()

    @property
    def tool_name(self) -> str:
        slug = _NOT_NAME.sub("_", self.name.lower()).strip("_")[:MAX_AGENT_NAME]
        return AGENT_TOOL_PREFIX + (slug or "agent")


def discover_agents(folders: Sequence[Path]) -> list[CustomAgent]:
    found: dict[str, CustomAgent] = {}
    for folder in folders:
        try:
            files = sorted(p for p in folder.iterdir() if p.suffix in (".yaml", ".yml"))
        except OSError:
            continue
        for file in files:
            agent = _read(file)
            if agent is not None and agent.tool_name not in found:
                found[agent.tool_name] = agent
    return list(found.values())


def _read(file: Path) -> CustomAgent | None:
    try:
        text = read_text(file, MAX_AGENT_CHARS)
    except OSError:
        return None
    front, body = split_front_matter(text)
    if front is None:
        return None
    name = " ".join(front.get("name", [])).strip()
    description = " ".join(front.get("description", [])).strip()
    if not name or not description:
        return None
    model = " ".join(front.get("modelId", [])).strip() or None
    tools = _names(front["tools"]) if "tools" in front else None
    return CustomAgent(
        name=name,
        description=description,
        instructions=body.strip(),
        model_id=model,
        tools=frozenset(tools) if tools is not None else None,
        skills=tuple(_names(front.get("skills", []))),
    )


def _names(values: list[str]) -> list[str]:
    """`tools: [a, b]`, a `- a` list, or `tools: a, b`."""
    return [n.strip() for v in values for n in v.split(",") if n.strip()]
