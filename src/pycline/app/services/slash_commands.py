"""The slash commands a person can type, for every front end: the terminal's `/help` and Tab,
the web page's `/` menu and its Commands dialog (`GET /api/commands`). One list, so they offer
the same commands.

Three sources: pycline's own commands (each a typed command to the task or an action of the
front end), Cline's commands that the core expands into instructions for the model (`/newtask`,
`/smol`, …, from `core/commands.py`), and the enabled workflows (`workspace/workflows.py`).
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pycline.app.settings.toggles import enabled_workflows
from pycline.core import commands as core_commands
from pycline.workspace import workflows as wf

Source = Literal["pycline", "cline", "workflow"]
FrontEnd = Literal["terminal", "web"]
BOTH: tuple[FrontEnd, ...] = ("terminal", "web")


@dataclass(frozen=True, slots=True)
class SlashCommand:
    name: str  # without the slash
    usage: str
    help: str
    source: Source = "pycline"
    path: Path | None = None  # a workflow's file
    # Where it means something: quitting is the terminal's; a page is closed, not exited.
    front_ends: tuple[FrontEnd, ...] = BOTH


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
    SlashCommand(
        "verify", "/verify [CMD|off]", "complete only when CMD exits 0 (checked in the sandbox)"
    ),
    SlashCommand("exit", "/exit", "quit (the task is saved)", front_ends=("terminal",)),
)

# Cline's commands, as the core expands them (one of pycline's own of the same name wins).
CLINE: tuple[SlashCommand, ...] = tuple(
    SlashCommand(name, f"/{name}", about[0].lower(), "cline")
    for name, about in core_commands.BUILTINS.items()
    if name not in {c.name for c in BUILTIN}
)

_WORD = re.compile(r"/([A-Za-z][A-Za-z0-9_.-]*)")


def workflows(found: list[wf.Workflow]) -> list[SlashCommand]:
    """The menu's workflows; one named like a command does not hide it."""
    taken = [c.name for c in (*BUILTIN, *CLINE)]
    return [
        SlashCommand(w.stem, f"/{w.stem}", _workflow_help(w), "workflow", w.path)
        for w in wf.menu(found, taken=taken)
    ]


def _workflow_help(w: wf.Workflow) -> str:
    return f"workflow: {w.description}" if w.description else f"workflow ({w.path.parent})"


def registry(root: Path, home: Path, front_end: FrontEnd = "terminal") -> list[SlashCommand]:
    """Every command `front_end` offers at this moment in the workspace `root`."""
    every = [*BUILTIN, *CLINE, *workflows(enabled_workflows(home, root))]
    return [c for c in every if front_end in c.front_ends]


def web_commands() -> list[SlashCommand]:
    """The web page's fixed commands (its workflows come from `registry`)."""
    return [c for c in (*BUILTIN, *CLINE) if "web" in c.front_ends]


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
