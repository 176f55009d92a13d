"""The slash commands in the terminal: `/help`'s text. Which commands exist, and how a typed
line names one, is `pycline.app.services.slash_commands` (the web page's `/` menu lists the same);
running them is `cli/slash_run.py`'s job."""

from __future__ import annotations

from pycline.app.services.slash_commands import SlashCommand


def help_text(commands: list[SlashCommand]) -> list[str]:
    width = max(len(c.usage) for c in commands)
    lines = []
    titles = {"pycline": "Commands", "cline": "Cline commands", "workflow": "Workflows"}
    for source in ("pycline", "cline", "workflow"):
        group = [c for c in commands if c.source == source]
        if group:
            lines.append(f"{titles[source]}:")
            lines.extend(f"  {c.usage:<{width}}  {c.help}" for c in group)
    lines.append(
        "Ctrl-C stops the current step; twice quits, as does Ctrl-D at the task prompt. Esc twice "
        "rewinds to a checkpoint. Tab completes commands and @paths."
    )
    return lines
