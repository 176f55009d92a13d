"""The slash commands of the interactive prompts: how a typed line names one, and the nearest
command to a mistyped one. What exists is `app/slash_commands.py`'s (one list for the terminal and
the web page); running them is `cli/slash_run.py`'s job."""

from __future__ import annotations

import difflib
import re
from pathlib import Path

# The list is the app layer's, so the web page's / menu offers the same commands.
from pycline.app.slash_commands import (
    BUILTIN,
    CLINE,
    SlashCommand,
    Source,
    workflows,
)
from pycline.app.slash_commands import registry as _registry

__all__ = ["BUILTIN", "CLINE", "SlashCommand", "Source", "registry", "workflows"]

_WORD = re.compile(r"/([A-Za-z][A-Za-z0-9_.-]*)")


def registry(root: Path, home: Path) -> list[SlashCommand]:
    """Every command at this moment."""
    return _registry(root, home, "terminal")


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
