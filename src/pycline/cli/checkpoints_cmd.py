"""Checkpoints from the terminal: `checkpoints`, `restore`, `diff` (SPEC §10).

A workspace has one shadow repository shared by all its tasks; a task's checkpoints are those
whose message starts with its id (see `core.checkpointing.commit_message`).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path

from pycline.app.services.checkpoints import (
    CheckpointError,
    Checkpoints,
    FileChange,
    Restored,
    RestoreMode,
    label_of,
)
from pycline.app.services.tasks import Tasks
from pycline.app.settings.home import pycline_home
from pycline.cli.common import count
from pycline.cli.style import colour_diff, style
from pycline.cli.tasks_cmd import human_size
from pycline.errors import PyclineError

CHECKPOINT_COMMANDS = ("checkpoints", "restore", "diff")


def build_parser(name: str) -> argparse.ArgumentParser:
    if name == "checkpoints":
        p = argparse.ArgumentParser(
            prog="pycline checkpoints",
            description="List a task's checkpoints, or (--disk) the space all checkpoints use.",
        )
        p.add_argument("id", nargs="?", help="task id; default: the latest task in this folder")
        p.add_argument("--json", action="store_true", help="JSON output")
        p.add_argument(
            "--disk", action="store_true", help="disk use per workspace, then compact (git gc)"
        )
        p.add_argument(
            "--remove-orphans",
            action="store_true",
            help="with --disk: delete the checkpoints of workspaces that no longer exist",
        )
        return p
    if name == "restore":
        p = argparse.ArgumentParser(
            prog="pycline restore",
            description="Restore the workspace files, the task's conversation, or both, to a "
            "checkpoint.",
        )
        p.add_argument(
            "refs",
            nargs="+",
            metavar="[ID] CHECKPOINT",
            help="task id (default: the latest task in this folder), then a checkpoint number "
            "or commit (see `pycline checkpoints`)",
        )
        how = p.add_mutually_exclusive_group(required=True)
        how.add_argument("--workspace", action="store_true", help="files back to the checkpoint")
        how.add_argument(
            "--task", action="store_true", help="conversation cut back to the checkpoint"
        )
        how.add_argument("--both", action="store_true", help="files and conversation")
        return p
    p = argparse.ArgumentParser(
        prog="pycline diff",
        description="Changes from a checkpoint to now, or between two checkpoints.",
    )
    p.add_argument(
        "refs",
        nargs="*",
        metavar="[ID] [CHECKPOINT [CHECKPOINT2]]",
        help="task id (default: the latest task in this folder); a checkpoint (default: the "
        "first, so the changes since the task started); a later one (default: the files now)",
    )
    p.add_argument("--stat", action="store_true", help="only the list of changed files")
    return p


def _split_refs(home: Path, refs: list[str], most: int) -> tuple[str | None, list[str]]:
    """`[ID] CP…`: the first word is a task id when such a task exists, else a checkpoint."""
    task_id = refs[0] if refs and Tasks(home).exists(refs[0]) else None
    checkpoints = refs[1:] if task_id is not None else refs
    if len(checkpoints) > most:
        raise CheckpointError(f"Too many checkpoints given: {' '.join(checkpoints)}.")
    return task_id, checkpoints


def run_checkpoints_command(name: str, argv: list[str]) -> int:
    ns = build_parser(name).parse_args(argv)
    home = pycline_home()
    try:
        if name in ("restore", "diff"):
            ns.id, refs = _split_refs(home, ns.refs, 1 if name == "restore" else 2)
            if name == "restore" and not refs:
                raise CheckpointError("Name the checkpoint to restore (`pycline checkpoints`).")
            ns.checkpoint, ns.checkpoint2 = [*refs, None, None][:2]
        if name == "checkpoints":
            if ns.disk:
                return asyncio.run(_disk(home, remove_orphans=ns.remove_orphans))
            return asyncio.run(_list(home, ns))
        if name == "restore":
            mode: RestoreMode = "workspace" if ns.workspace else "task" if ns.task else "both"
            return asyncio.run(_restore(home, ns.id, ns.checkpoint, mode))
        return asyncio.run(_diff(home, ns))
    except PyclineError as exc:
        print(f"pycline: {exc}", file=sys.stderr)
        return 2


# --- finding a task's checkpoints ------------------------------------------------------------


async def _list(home: Path, ns: argparse.Namespace) -> int:
    found = await Checkpoints(home).list(ns.id, workspace=Path.cwd())
    record, checkpoints = found.record, found.checkpoints
    if ns.json:
        rows = [
            {
                "number": i,
                "commit": c.commit,
                "time": c.created_at.isoformat(),
                "label": label_of(c.message),
            }
            for i, c in enumerate(checkpoints, 1)
        ]
        print(json.dumps(rows, indent=1))
        return 0
    if not checkpoints:
        print(f"Task {record.id} has no checkpoints.")
        return 0
    for i, c in enumerate(checkpoints, 1):
        when = c.created_at.astimezone().strftime("%Y-%m-%d %H:%M:%S")
        print(f"{i:>3}  {c.commit[:10]}  {when}  {label_of(c.message)}")
    return 0


# --- restore and diff ------------------------------------------------------------------------


async def _restore(home: Path, task_id: str | None, ref: str, mode: RestoreMode) -> int:
    if task_id is None:  # the latest task in this folder
        task_id = (await Checkpoints(home).list(None, workspace=Path.cwd())).record.id
    done = await Checkpoints(home).restore(task_id, ref, mode, workspace=Path.cwd())
    return _print_restored(done)


def _print_restored(done: Restored) -> int:
    commit, record = done.checkpoint.commit[:10], done.record
    if done.files is not None and done.undo is not None:
        print(
            f"Restored the workspace to {commit}: {count(done.files.written, 'file')} "
            f"written, {done.files.deleted} deleted."
        )
        for path in done.files.skipped:
            print(f"  left alone (ignored, untracked or a nested repository): {path}")
        print(f"To undo: pycline restore {record.id} {done.undo[:10]} --workspace")
    if done.conversation is not None:
        print(
            f"Restored the conversation to {commit}: "
            f"{done.conversation.api_messages_removed} messages removed (their cost stays on the "
            f"record). Continue with: pycline resume {record.id}"
        )
    return 0


def _print_change(change: FileChange) -> None:
    diff = change.unified_diff
    if not diff and change.mode_before != change.mode_after:
        diff = f"mode {change.mode_before} -> {change.mode_after}: {change.path}\n"
    elif change.mode_before and change.mode_after and change.mode_before != change.mode_after:
        diff = f"mode {change.mode_before} -> {change.mode_after}: {change.path}\n{diff}"
    sys.stdout.write((colour_diff(diff) + "\n") if sys.stdout.isatty() else diff)


async def _diff(home: Path, ns: argparse.Namespace) -> int:
    return await show_diff(home, ns.id, ns.checkpoint, ns.checkpoint2, stat=ns.stat)


async def show_diff(
    home: Path,
    task_id: str | None,
    ref: str | None = None,
    ref2: str | None = None,
    *,
    stat: bool = False,
) -> int:
    """Print the changes from a checkpoint (default: the task's first) to another, or to now."""
    checkpoints = Checkpoints(home)
    listed = await checkpoints.list(task_id, workspace=Path.cwd())
    if not listed.checkpoints:
        print(f"Task {listed.record.id} has no checkpoints.")
        return 0
    found = await checkpoints.diff(listed.record.id, ref or "1", ref2, workspace=Path.cwd())
    for change in found.changes:
        if stat:
            print(f"{change.status:<9} {change.path}")
        else:
            _print_change(change)
    target = found.second.commit[:10] if found.second is not None else "now"
    n = len(found.changes)
    files = "1 file" if n == 1 else f"{n} files"
    print(style(f"{files} changed from {found.first.commit[:10]} to {target}.", "dim"))
    return 0


async def restore_both(home: Path, task_id: str, commit: str) -> int:
    """Files and conversation back to `commit` (the Esc-twice rewind)."""
    return await _restore(home, task_id, commit, "both")


async def undo_last_step(home: Path, task_id: str) -> int:
    """The last change undone: files and conversation (see `Checkpoints.undo_last_step`)."""
    done = await Checkpoints(home).undo_last_step(task_id, workspace=Path.cwd())
    return _print_restored(done)


async def _disk(home: Path, *, remove_orphans: bool) -> int:
    found = await Checkpoints(home).disk_use(remove_orphans=remove_orphans)
    if not found:
        print("No checkpoints yet.")
        return 0
    for use in found:
        where = str(use.workspace) if use.workspace else "unknown workspace"
        size = f"{human_size(use.after):>10}"
        if use.removed:
            print(f"{human_size(use.before):>10}  {where} (folder gone): removed")
        elif use.gone:
            print(f"{size}  {where} (folder gone; --remove-orphans deletes)")
        elif use.problem:
            print(f"{size}  {where}: {use.problem}")
        else:
            print(
                f"{size}  {where}  ({use.checkpoints} checkpoints of {use.tasks} tasks;"
                f" {human_size(use.before)} before gc)"
            )
    total_before = sum(u.before for u in found)
    total_after = sum(u.after for u in found)
    print(f"{human_size(total_after):>10}  total ({human_size(total_before)} before)")
    return 0
