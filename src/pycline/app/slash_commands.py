"""The slash commands a person can type, in one list every front end shows: the terminal's
`/help` and Tab completion, the web page's `/` menu and its Commands dialog.

Three sources: pycline's own commands (each front end runs them), Cline's commands that the agent
core expands into instructions for the model (`/newtask`, `/smol`, …), and the enabled workflows
(`app/menus.py` lists them, as for the editor; the core expands them too).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pycline.app.menus import Workflow, workflow_menu
from pycline.app.toggles import enabled_workflows

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
    SlashCommand("exit", "/exit", "quit (the task is saved)", front_ends=("terminal",)),
)

CLINE: tuple[SlashCommand, ...] = (
    SlashCommand("newtask", "/newtask", "start a new task carrying this one's context", "cline"),
    SlashCommand("smol", "/smol", "condense the conversation (as /compact)", "cline"),
    SlashCommand("newrule", "/newrule", "have the model write a .clinerules rule", "cline"),
    SlashCommand(
        "deep-planning", "/deep-planning", "investigate, then write a detailed plan", "cline"
    ),
)


def workflows(found: list[Workflow]) -> list[SlashCommand]:
    """The menu's workflows; one named like a command does not hide it."""
    taken = [c.name for c in (*BUILTIN, *CLINE)]
    return [
        SlashCommand(w.stem, f"/{w.stem}", _workflow_help(w), "workflow", w.path)
        for w in workflow_menu(found, taken=taken)
    ]


def _workflow_help(w: Workflow) -> str:
    return f"workflow: {w.description}" if w.description else f"workflow ({w.path.parent})"


def registry(root: Path, home: Path, front_end: FrontEnd = "terminal") -> list[SlashCommand]:
    """Every command `front_end` offers at this moment."""
    every = [*BUILTIN, *CLINE, *workflows(enabled_workflows(home, root))]
    return [c for c in every if front_end in c.front_ends]


def web_commands() -> list[SlashCommand]:
    """The web page's fixed commands (its workflows come from `registry`)."""
    return [c for c in (*BUILTIN, *CLINE) if "web" in c.front_ends]
