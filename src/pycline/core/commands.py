"""Slash commands in what the user types: Cline's built-ins and the user's workflows.

The first `/name` in a message (at its start or after whitespace, followed by whitespace or the
end) is a command when it names a built-in (`/newtask`, `/smol`, `/compact`, `/newrule`,
`/deep-planning`) or an enabled workflow file. It is removed from the text and its instructions
are put before the rest as `<explicit_instructions type="name">…</explicit_instructions>`. One
command per message; anything else that looks like one is left alone.

Workflows are files in the workspace's `.clinerules/workflows/` (any depth) and in the global
workflows folder, invoked by file name (`/deploy.md`) or, when unambiguous, by stem (`/deploy`).
A workspace workflow wins over a global one of the same name. Each file is read when invoked.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final, Literal

_COMMAND = re.compile(r"(^|\s)/([a-zA-Z0-9_.:@-]+)(?=\s|$)")
MAX_WORKFLOW_CHARS: Final = 100_000


@dataclass(frozen=True, slots=True)
class Command:
    name: str
    description: str
    source: Literal["builtin", "workflow"]
    path: Path | None = None


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


def workflow_files(
    root: Path,
    global_dir: Path | None,
    *,
    toggles: Mapping[str, bool] | None = None,
    global_toggles: Mapping[str, bool] | None = None,
) -> list[Command]:
    """The enabled workflows, workspace ones first. Toggles map a file's absolute path (or its
    path relative to its folder) to whether it is on; files not named are on."""
    found: list[Command] = []
    folders = [(root / ".clinerules" / "workflows", toggles)]
    if global_dir is not None:
        folders.append((global_dir, global_toggles))
    for folder, switches in folders:
        for path in _files(folder):
            if not _enabled(path, folder, switches):
                continue
            found.append(Command(path.name, _describe(path), "workflow", path))
    return found


def available_commands(
    root: Path,
    global_dir: Path | None,
    *,
    toggles: Mapping[str, bool] | None = None,
    global_toggles: Mapping[str, bool] | None = None,
) -> list[Command]:
    """Every command a user may type now, for completion and help."""
    builtins = [Command(n, d, "builtin") for n, (d, _) in BUILTINS.items()]
    return builtins + workflow_files(
        root, global_dir, toggles=toggles, global_toggles=global_toggles
    )


@dataclass(frozen=True, slots=True)
class Expanded:
    text: str
    command: str | None = None  # the command applied, if any


def has_command_word(text: str) -> bool:
    """Whether `text` has a `/word` that could be a command (so the workflows need looking up)."""
    return _COMMAND.search(text) is not None


def expand(text: str, workflows: Sequence[Command]) -> Expanded:
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


def _instructions(name: str, workflows: Sequence[Command]) -> tuple[str, str] | None:
    if name in BUILTINS:
        return name, BUILTINS[name][1]
    chosen = next((w for w in workflows if w.name == name), None)
    if chosen is None:
        stems = [w for w in workflows if w.path is not None and w.path.stem == name]
        chosen = stems[0] if stems else None
    if chosen is None or chosen.path is None:
        return None
    try:
        body = chosen.path.read_text(encoding="utf-8", errors="replace")[:MAX_WORKFLOW_CHARS]
    except OSError:
        return None
    return chosen.name, body.strip()


def _files(folder: Path) -> list[Path]:
    if not folder.is_dir():
        return []
    try:
        files = [p for p in folder.rglob("*") if p.is_file() and not p.name.startswith(".")]
    except OSError:
        return []
    return sorted(files, key=lambda p: p.relative_to(folder).as_posix().casefold())


def _enabled(path: Path, folder: Path, toggles: Mapping[str, bool] | None) -> bool:
    if not toggles:
        return True
    for key in (str(path), path.relative_to(folder).as_posix()):
        if key in toggles:
            return bool(toggles[key])
    return True


def _describe(path: Path) -> str:
    """The workflow's first non-empty line, without Markdown heading marks."""
    try:
        with path.open(encoding="utf-8", errors="replace") as f:
            for line in f:
                line = line.strip().lstrip("#").strip()
                if line and line != "---":
                    return line[:100]
    except OSError:
        pass
    return "workflow"
