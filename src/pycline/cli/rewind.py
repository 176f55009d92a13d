"""Esc twice at the task prompt: pick one of the task's recent checkpoints and go back to it,
files and conversation (what `/undo` does for the last step, for any recent one)."""

from __future__ import annotations

from pathlib import Path

from pycline.cli.lines import LineReader
from pycline.cli.style import style
from pycline.errors import PyclineError

SHOWN = 10  # the most recent checkpoints offered


async def offer_rewind(
    reader: LineReader, home: Path, task_id: str | None, workspace: Path
) -> str | None:
    """List the task's recent checkpoints (the latest task here without an id), restore the one
    the user picks; the task's id when it was rewound, None when nothing was done."""
    from pycline.app.services.checkpoints import Checkpoints, label_of
    from pycline.cli.checkpoints_cmd import restore_both

    try:
        listed = await Checkpoints(home).list(task_id, workspace=workspace)
    except PyclineError as exc:
        print(style(f"Nothing to rewind: {exc}", "yellow"))
        return None
    recent = list(reversed(listed.checkpoints))[:SHOWN]
    if not recent:
        print(style(f"Task {listed.record.id} has no checkpoints to rewind to.", "yellow"))
        return None
    print(
        style(f"Rewind task {listed.record.id} to a checkpoint (files and conversation):", "bold")
    )
    for n, checkpoint in enumerate(recent, 1):
        when = checkpoint.created_at.astimezone().strftime("%H:%M:%S")
        print(f"  {n:>2}. {when}  {label_of(checkpoint.message)}")
    reply = await reader.readline(style("Checkpoint number (Enter to cancel): ", "bold"))
    choice = (reply or "").strip()
    if not choice.isdigit() or not 1 <= int(choice) <= len(recent):
        print(style("Nothing was changed.", "dim"))
        return None
    try:
        await restore_both(home, listed.record.id, recent[int(choice) - 1].commit)
    except PyclineError as exc:
        print(style(f"Could not rewind: {exc}", "red"))
        return None
    return listed.record.id
