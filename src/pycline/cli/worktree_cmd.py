"""Worktree tasks from the terminal: `pycline run --worktree` and `pycline worktree ...`.

The use cases live in `pycline.app.services.worktrees`; this module only parses flags and renders.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path

from pycline.app.services import worktrees
from pycline.app.services.worktrees import (
    ChangeSummary,
    FinishChoice,
    FinishReport,
    MergeConflict,
    Merged,
    MergeRefused,
    MergeResult,
    WorktreeInfo,
)
from pycline.app.settings.home import pycline_home
from pycline.errors import PyclineError


def run_in_worktree(ns: argparse.Namespace, run: Callable[[argparse.Namespace], int]) -> int:
    """Create the worktree, run the task inside it with `run`, then finish as --on-finish says."""
    home = pycline_home()
    if (problem := _name_or_task(ns)) is not None:
        print(f"pycline: {problem}", file=sys.stderr)
        return 2
    try:
        info = asyncio.run(
            worktrees.create(
                Path(ns.cwd).expanduser().resolve(),
                home,
                name=ns.worktree or None,
                carry_changes=ns.carry_changes,
            )
        )
    except PyclineError as exc:
        print(f"pycline: {exc}", file=sys.stderr)
        return 2
    print(f"pycline: working in {info.path} on branch {info.branch}", file=sys.stderr)
    ns.cwd = info.path
    code = run(ns)
    on_finish = ns.on_finish if ns.on_finish != "ask" else _ask_finish(info)
    choice: FinishChoice = "keep"
    if on_finish in ("merge", "discard"):
        choice = "merge" if on_finish == "merge" else "discard"
    if choice == "merge" and code != 0:
        # Unfinished work is never merged unasked; it stays on its branch for a look.
        print("pycline: the task did not complete, so it is kept, not merged", file=sys.stderr)
        choice = "keep"
    try:
        report = asyncio.run(
            worktrees.finish(info, home, choice, message=_commit_message(" ".join(ns.task)))
        )
        patch = asyncio.run(worktrees.diff(info)) if on_finish == "diff" else None
    except PyclineError as exc:
        print(f"pycline: {exc}; the worktree {info.path} is kept", file=sys.stderr)
        return code or 1
    if getattr(ns, "json", False):
        print(json.dumps({"type": "worktree", **asdict(report)}, ensure_ascii=False))
    else:
        render_finish(report)
        if patch:
            print(patch, end="" if patch.endswith("\n") else "\n")
    merge_failed = report.merge is not None and not isinstance(report.merge, Merged)
    return code or (1 if merge_failed else 0)


def _name_or_task(ns: argparse.Namespace) -> str | None:
    """`--worktree "fix the bug"`: words no worktree can be named are the task, when no other
    task was given; otherwise what is wrong and what to type instead (None: all is well)."""
    name = ns.worktree
    if not name or worktrees.valid_name(name):
        return None
    given = bool(ns.task) or bool(getattr(ns, "task_file", None))
    if not given and any(ch.isspace() for ch in name):
        ns.task, ns.worktree = [name], ""
        return None
    command = "pycline run" if hasattr(ns, "task_file") else "pycline"
    return (
        f"{name!r} is not a usable worktree name (letters, digits, '.', '_', '-'). "
        f'Name it with `{command} --worktree=NAME "your task"`, or let pycline name it with '
        f'`{command} --worktree -- "your task"`.'
    )


def _ask_finish(info: WorktreeInfo) -> str:
    """At the end of an interactive worktree task: what to do with its branch."""
    try:
        render_changes(asyncio.run(worktrees.summary(info)))
        while True:
            reply = input(f"{info.branch}: [m]erge, [k]eep, [d]iff, dis[c]ard? [k] ")
            choice = {"m": "merge", "k": "keep", "": "keep", "c": "discard"}.get(
                reply.strip().lower()[:1]
            )
            if choice is not None:
                return choice
            sys.stdout.write(asyncio.run(worktrees.diff(info)))
    except EOFError:
        return "keep"


def _commit_message(task: str) -> str:
    first = task.strip().splitlines()[0] if task.strip() else "pycline task"
    return f"pycline: {first[:72]}"


def render_changes(changes: ChangeSummary) -> None:
    if changes.empty:
        print("No changes.")
        return
    print(f"{len(changes.files)} file(s) changed in {changes.commits} commit(s):")
    for f in changes.files:
        counts = "binary" if f.added is None else f"+{f.added} -{f.removed}"
        print(f"  {f.status} {f.path} ({counts})")


def render_merge(result: MergeResult, branch: str) -> None:
    match result:
        case Merged(how=how, target=target, commit=commit, tree_updated=updated):
            where = " and your checkout was fast-forwarded" if updated else ""
            print(f"Merged {branch} into {target} ({how}, {commit[:10]}){where}.")
        case MergeConflict(target=target, files=files):
            print(f"Not merged: {branch} conflicts with {target} in:")
            for name in files:
                print(f"  {name}")
            print(f"The branch {branch} is kept; merge it yourself to resolve.")
        case MergeRefused(reason=reason):
            print(f"Not merged: {reason}.")


def render_finish(report: FinishReport) -> None:
    render_changes(report.changes)
    info = report.info
    match report.choice:
        case "merge":
            assert report.merge is not None
            render_merge(report.merge, info.branch)
        case "keep":
            print(
                f"Kept branch {info.branch} and worktree {info.path} "
                f"(`pycline worktree merge {info.name}` / `discard {info.name}`)."
            )
        case "discard":
            print(f"Discarded {info.branch}.")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pycline worktree", description="Worktree tasks of the repository in --cwd."
    )
    parser.add_argument("--cwd", default=".", help="a folder inside the repository")
    sub = parser.add_subparsers(dest="action", required=True)
    listing = sub.add_parser("list", help="list worktree tasks")
    listing.add_argument("--json", action="store_true")
    for action, text in (
        ("show", "summary of a task's changes"),
        ("diff", "the full diff of a task's changes"),
        ("merge", "merge into the branch it came from; removes it when merged"),
        ("discard", "remove the worktree and delete its branch"),
    ):
        sub.add_parser(action, help=text).add_argument("name")
    return parser


def run_worktree_command(argv: list[str]) -> int:
    ns = build_parser().parse_args(argv)
    try:
        return asyncio.run(_run(ns))
    except PyclineError as exc:
        print(f"pycline: {exc}", file=sys.stderr)
        return 2


async def _run(ns: argparse.Namespace) -> int:
    home = pycline_home()
    cwd = Path(ns.cwd).expanduser().resolve()
    if ns.action == "list":
        found = await worktrees.list_worktrees(cwd, home)
        if ns.json:
            print(json.dumps([asdict(w) for w in found], indent=1))
        for w in [] if ns.json else found:
            print(f"{w.name}\t{w.branch}\tfrom {w.target or w.base[:10]}\t{w.path}")
        return 0
    info: WorktreeInfo = await worktrees.get(cwd, home, ns.name)
    if ns.action == "show":
        render_changes(await worktrees.summary(info))
    elif ns.action == "diff":
        sys.stdout.write(await worktrees.diff(info))
    elif ns.action == "merge":
        report = await worktrees.finish(info, home, "merge", message=f"pycline: {info.name}")
        render_finish(report)
        return 0 if isinstance(report.merge, Merged) else 1
    else:
        await worktrees.finish(info, home, "discard", message=f"pycline: {info.name}")
        print(f"Discarded {info.branch}.")
    return 0
