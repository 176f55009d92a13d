"""The slash commands of the interactive prompts: what exists, how a typed line names one, and
the nearest command to a mistyped one. Running them is `cli/slash_run.py`'s job.

Three sources: pycline's own commands, Cline's commands that the agent core expands into
instructions for the model (`/newtask`, `/smol`, …), and the enabled workflows (listed by
`workspace/workflows.py`; the agent core expands them, as it does Cline's commands).
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pycline.app.menus import Workflow, workflow_menu
from pycline.app.toggles import enabled_workflows

Source = Literal["pycline", "cline", "workflow"]


@dataclass(frozen=True, slots=True)
class SlashCommand:
    name: str  # without the slash
    usage: str
    help: str
    source: Source = "pycline"
    path: Path | None = None  # a workflow's file


BUILTIN: tuple[SlashCommand, ...] = (
    SlashCommand("help", "/help", "list the commands"),
    SlashCommand("model", "/model [plan|act] [PROVIDER/]MODEL", "switch model for this session"),
    SlashCommand("plan", "/plan", "Plan mode: explore and plan, no edits"),
    SlashCommand("act", "/act", "Act mode (at the plan prompt: carry the plan out)"),
    SlashCommand("new", "/new", "finish this task; the next message starts a new one"),
    SlashCommand("clear", "/clear", "the same as /new"),
    SlashCommand("cost", "/cost", "tokens and cost of the task so far"),
    SlashCommand("undo", "/undo", "restore the checkpoint before the last step (files and task)"),
    SlashCommand("diff", "/diff", "changes to the files since the task started"),
    SlashCommand("history", "/history", "recent tasks in this folder"),
    SlashCommand("resume", "/resume [ID]", "continue a saved task (the latest by default)"),
    SlashCommand("compact", "/compact", "condense the conversation into a summary"),
    SlashCommand("ps", "/ps", "the task's background processes"),
    SlashCommand("stop", "/stop N", "stop background process N"),
    SlashCommand("settings", "/settings", "the settings in force, and how to change them"),
    SlashCommand("exit", "/exit", "quit (the task is saved)"),
)

CLINE: tuple[SlashCommand, ...] = (
    SlashCommand("newtask", "/newtask", "start a new task carrying this one's context", "cline"),
    SlashCommand("smol", "/smol", "condense the conversation (as /compact)", "cline"),
    SlashCommand("newrule", "/newrule", "have the model write a .clinerules rule", "cline"),
    SlashCommand(
        "deep-planning", "/deep-planning", "investigate, then write a detailed plan", "cline"
    ),
)

_WORD = re.compile(r"/([A-Za-z][A-Za-z0-9_.-]*)")


def workflows(found: list[Workflow]) -> list[SlashCommand]:
    """The menu's workflows; one named like a command does not hide it."""
    taken = [c.name for c in (*BUILTIN, *CLINE)]
    return [
        SlashCommand(w.stem, f"/{w.stem}", f"workflow ({w.path.parent})", "workflow", w.path)
        for w in workflow_menu(found, taken=taken)
    ]


def registry(root: Path, home: Path) -> list[SlashCommand]:
    """Every command at this moment."""
    return [*BUILTIN, *CLINE, *workflows(enabled_workflows(home, root))]


def split(line: str) -> tuple[str, str] | None:
    """`/name rest…` → (name, rest); None when the line is not a command.

    An absolute path at the start of a task (`/etc/hosts is wrong`) is not a command: a command
    word has no second slash.
    """
    word, _, rest = line.strip().partition(" ")
    match = _WORD.fullmatch(word)
    return (match.group(1), rest.strip()) if match else None


def find(commands: list[SlashCommand], name: str) -> SlashCommand | None:
    return next((c for c in commands if c.name == name), None)


def nearest(commands: list[SlashCommand], name: str) -> str | None:
    found = difflib.get_close_matches(name, [c.name for c in commands], n=1, cutoff=0.6)
    return found[0] if found else None


def help_text(commands: list[SlashCommand]) -> list[str]:
    width = max(len(c.usage) for c in commands)
    lines = []
    titles = {"pycline": "Commands", "cline": "Cline commands", "workflow": "Workflows"}
    for source in ("pycline", "cline", "workflow"):
        group = [c for c in commands if c.source == source]
        if group:
            lines.append(f"{titles[source]}:")
            lines.extend(f"  {c.usage:<{width}}  {c.help}" for c in group)
    lines.append("Ctrl-C stops the current step; twice quits. Tab completes commands and @paths.")
    return lines
