"""The blocks an assistant reply parses into (SPEC §3)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, TypeAlias


@dataclass(slots=True)
class TextBlock:
    content: str
    partial: bool
    kind: Literal["text"] = "text"


@dataclass(slots=True)
class ToolUseBlock:
    name: str
    params: dict[str, str] = field(default_factory=dict)
    partial: bool = True
    kind: Literal["tool_use"] = "tool_use"


AssistantBlock: TypeAlias = TextBlock | ToolUseBlock
