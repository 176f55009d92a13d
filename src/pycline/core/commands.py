"""Slash commands in what the user types: Cline's built-ins and the user's workflows.

The first `/name` in a message (at its start or after whitespace, followed by whitespace or the
end) is a command when it names a built-in (`/newtask`, `/smol`, `/compact`, `/newrule`,
`/deep-planning`) or an enabled workflow file. It is removed from the text and its instructions
are put before the rest as `<explicit_instructions type="name">…</explicit_instructions>`. One
command per message; anything else that looks like one is left alone.

Workflows (what exists and which wins) are `workspace/workflows.py`'s; a workflow runs by file
name (`/deploy.md`) or by stem (`/deploy`), and its file is read when invoked.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from pycline.core.capability import Capability, RunContext, Stop
from pycline.messages import Content, TextContent
from pycline.prompts.system import render_tool
from pycline.tools.base import ToolSpec
from pycline.workspace import workflows as wf
from pycline.workspace.workflows import Workflow

_COMMAND = re.compile(r"(^|\s)/(" + wf.COMMAND_NAME.pattern + r")(?=\s|$)")


_NEWTASK = """The user wants to start a new task with the context of this one. Your only action: call the new_task tool. Its context must let a fresh session continue the work without this conversation, in five parts:
1. Current Work: what was being done most recently.
2. Key Technical Concepts: technologies, conventions and decisions that matter.
3. Relevant Files and Code: the files read, changed or created, with the important snippets.
4. Problem Solving: problems solved and troubleshooting under way.
5. Pending Tasks and Next Steps: what remains, quoting the user's latest requests verbatim where they matter."""

_CONDENSE = """The user wants the conversation condensed. Your only action: call the condense tool. Its context is a detailed summary: the previous conversation in brief, then Current Work, Key Technical Concepts, Relevant Files and Code, Problem Solving, and Pending Tasks and Next Steps (quote the latest requests verbatim). If you keep a task_progress checklist, pass it unchanged except for checkmarks."""

_NEWRULE = """The user wants a rule file for this project. Your only action: call the new_rule tool with a path under .clinerules/ ending in .md, and content that starts with "## Brief overview" followed by short sections of concrete guidance drawn from this conversation (the user's preferences, the project's conventions, the workflow that worked). Ask with ask_followup_question first only if you cannot tell what the rule should cover."""

_DEEP_PLANNING = """The user wants deep planning before any change. Work in four steps:
1. Investigate silently: read the relevant files and run read-only commands (pipe long output through cat) until you understand the code involved. Do not change anything.
2. Ask only the questions you cannot answer from the code, with ask_followup_question, few and precise.
3. Write implementation_plan.md with these sections: [Overview] [Types] [Files] [Functions] [Classes] [Dependencies] [Testing] [Implementation Order], each concrete (paths, names, signatures).
4. Call new_task with a context that points to @implementation_plan.md, lists for each plan section the command to read it, gives the steps as a task_progress checklist, and asks to switch to ACT MODE to carry the plan out."""

BUILTINS: Final[Mapping[str, tuple[str, str]]] = {
    "newtask": ("Start a new task carrying this one's context", _NEWTASK),
    "smol": ("Condense the conversation into a summary", _CONDENSE),
    "compact": ("Condense the conversation into a summary (same as /smol)", _CONDENSE),
    "newrule": ("Write a .clinerules file from this conversation", _NEWRULE),
    "deep-planning": ("Investigate, ask, write a plan, then hand off", _DEEP_PLANNING),
}


# Tools only a command calls for: offered (in the tool list and the prompt) once the user has typed
# the command, which says when to call them; until then they would only cost tokens every request.
COMMAND_TOOLS: Final[Mapping[str, str]] = {
    "newtask": "new_task",
    "deep-planning": "new_task",
    "smol": "condense",
    "compact": "condense",
    "newrule": "new_rule",
}
ON_REQUEST_TOOLS: Final = frozenset(COMMAND_TOOLS.values())
_APPLIED = re.compile(r'<explicit_instructions type="([^"]+)">')


def tools_asked_for(text: str) -> set[str]:
    """The command tools that commands applied in `text` (an expanded message) call for."""
    return {COMMAND_TOOLS[k] for k in _APPLIED.findall(text) if k in COMMAND_TOOLS}


@dataclass(frozen=True, slots=True)
class Expanded:
    text: str
    command: str | None = None  # the command applied, if any


def has_command_word(text: str) -> bool:
    """Whether `text` has a `/word` that could be a command (so the workflows need looking up)."""
    return _COMMAND.search(text) is not None


def expand(text: str, workflows: Sequence[Workflow]) -> Expanded:
    """`text` with its first slash command turned into explicit instructions."""
    for match in _COMMAND.finditer(text):
        name = match.group(2)
        instructions = _instructions(name, workflows)
        if instructions is None:
            continue
        kind, body = instructions
        before, after = text[: match.start(2) - 1], text[match.end(2) :]
        rest = f"{before.rstrip()} {after.lstrip()}".strip()
        block = f'<explicit_instructions type="{kind}">\n{body}\n</explicit_instructions>\n'
        return Expanded(block + rest, kind)
    return Expanded(text)


def _instructions(name: str, workflows: Sequence[Workflow]) -> tuple[str, str] | None:
    if name in BUILTINS:
        return name, BUILTINS[name][1]
    chosen = wf.find(name, workflows)
    steps = None if chosen is None else wf.read_steps(chosen)
    if chosen is None or steps is None:
        return None
    return chosen.name, steps


def _enabled(root: Path) -> list[Workflow]:
    return wf.enabled_workflows(root, None)


class SlashCommands(Capability):
    """Slash commands in what the user types, and the tools only a command offers: a command's
    own tool is offered from the message that used it on (with XML calls, its docs come along).
    `workflows` are the ones `/name` may run in a workspace (the app's: the user's folder too,
    minus the ones switched off); by default the workspace's own."""

    def __init__(self, workflows: Callable[[Path], list[Workflow]] = _enabled) -> None:
        self.workflows = workflows
        self.requested: set[str] = set()  # command tools the user asked for

    async def before_run(self, ctx: RunContext, content: Sequence[Content]) -> list[Content] | Stop:
        # After a restart: the command tools the user asked for earlier in the task.
        for message in ctx.history:
            if message.role == "user":
                for part in message.content:
                    if isinstance(part, TextContent):
                        self.requested |= tools_asked_for(part.text)
        return []

    def expand(self, ctx: RunContext, text: str) -> str:
        if not has_command_word(text):
            return text  # e.g. a path: no need to list and open the workflow files
        expanded = expand(text, self.workflows(ctx.workspace.root))
        name = COMMAND_TOOLS.get(expanded.command or "")
        tool = ctx.tools.get(name) if name else None
        if tool is None:
            return expanded.text
        self.requested.add(tool.spec.name)
        if ctx.native:
            return expanded.text
        return f"{expanded.text}\n\n# Tool for this request\n{render_tool(tool.spec)}"

    def offer(self, ctx: RunContext, specs: Sequence[ToolSpec]) -> Sequence[ToolSpec]:
        return tuple(s for s in specs if s.name not in ON_REQUEST_TOOLS or s.name in self.requested)
