"""The system prompt: compact, and listing only the tools this build offers."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, Protocol


class ParamDoc(Protocol):
    @property
    def name(self) -> str: ...
    @property
    def description(self) -> str: ...
    @property
    def required(self) -> bool: ...


class ToolDoc(Protocol):
    @property
    def name(self) -> str: ...
    @property
    def description(self) -> str: ...
    @property
    def params(self) -> Sequence[ParamDoc]: ...
    @property
    def example(self) -> str: ...


@dataclass(frozen=True, slots=True)
class SystemInfo:
    os_name: str
    shell: str
    home: str
    cwd: str


Mode = Literal["act", "plan"]

_ROLE = (
    """You are pycline, a skilled software engineer working in the user's project through tools."""
)

_FORMAT = """# Tool use
Call a tool with XML tags, the tool name enclosing one tag per parameter:
<tool_name>
<param_name>value</param_name>
</tool_name>
One tool call per message, at its end; its result arrives in the next user message. Then decide the next step.
Think first inside <thinking></thinking> if useful: what you know, which tool fits, whether every required parameter is known."""

_NATIVE_FORMAT = """# Tool use
Work step by step: one tool call per message, then wait for its result before the next step. Think briefly before a call: what you know, which tool fits, whether every required parameter is known."""

_EDITING = """# Editing files
- replace_in_file for targeted changes; write_to_file for new files or rewrites, always with the COMPLETE content.
- After an edit you get the file's final state (it may be auto-formatted): base later SEARCH blocks on it."""

_RULES = """# Rules
- Paths are relative to the working directory; you cannot cd out of it (run `cd dir && command` instead).
- Before running a command, consider the system information below and explain what it does.
- Environment details arrive with each user message; they are context, not the user's request.
- Do not start replies with filler ("Great", "Certainly"); be direct and technical."""

_OBJECTIVE = """# Objective
Break the task into steps and work through them. Explore only as much as needed. When the work is verified, call attempt_completion. If the user gives feedback, improve and try again."""

_MODES = {
    "act": "# Mode\nACT MODE: carry the task out with the tools.",
    "plan": (
        "# Mode\nPLAN MODE: explore and discuss a plan with plan_mode_respond; do not change files "
        "or run state-changing commands until the user switches to ACT MODE."
    ),
}


def render_tool(tool: ToolDoc) -> str:
    lines = [f"## {tool.name}", tool.description.strip()]
    for p in tool.params:
        need = "required" if p.required else "optional"
        lines.append(f"- {p.name} ({need}): {p.description}")
    if tool.example:
        lines.append("Example:\n" + tool.example.strip())
    return "\n".join(lines)


def build_system_prompt(
    tools: Sequence[ToolDoc],
    info: SystemInfo,
    *,
    mode: Mode = "act",
    custom_instructions: str = "",
    native: bool = False,
) -> str:
    """With `native`, tools are described by their API definitions instead of in the prompt."""
    tool_docs = "# Tools\n\n" + "\n\n".join(render_tool(t) for t in tools)
    parts = [
        _ROLE,
        *((_NATIVE_FORMAT,) if native else (_FORMAT, tool_docs)),
        _EDITING,
        _MODES[mode],
        _RULES,
        (
            "# System information\n"
            f"OS: {info.os_name}\nShell: {info.shell}\nHome: {info.home}\nWorking directory: {info.cwd}"
        ),
        _OBJECTIVE,
    ]
    if custom_instructions.strip():
        parts.append("# User's custom instructions\n" + custom_instructions.strip())
    return "\n\n".join(parts) + "\n"
