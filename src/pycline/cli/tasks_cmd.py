"""Saved tasks from the terminal: `history`, `show`, `export`, `delete`, `favorite`."""

from __future__ import annotations

import argparse
import datetime as dt
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from pycline.app.services.tasks import Problem, TaskRecord
from pycline.app.settings.home import pycline_home
from pycline.errors import PyclineError

if TYPE_CHECKING:
    from pycline.app.services.tasks import Tasks

TASK_COMMANDS = ("history", "show", "export", "delete", "favorite")


def human_size(size: int) -> str:
    value = float(size)
    for unit in ("B", "KB", "MB", "GB"):
        if value < 1024 or unit == "GB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    raise AssertionError("unreachable")


def _when(ts: float) -> str:
    return dt.datetime.fromtimestamp(ts).strftime("%Y-%m-%d %H:%M")


def _report(problems: list[Problem]) -> None:
    for p in problems:
        print(f"pycline: warning: task {p.task_id} cannot be read: {p.message}", file=sys.stderr)


def build_parser(name: str) -> argparse.ArgumentParser:
    descriptions = {
        "history": "List past tasks, newest first.",
        "show": "Show a saved task: its record and a summary of what happened.",
        "export": "Export a task's conversation as Markdown.",
        "delete": "Delete a task: its folder, its history entry and its checkpoints.",
        "favorite": "Star a task (favourites are listed with `history --favorites`).",
    }
    parser = argparse.ArgumentParser(prog=f"pycline {name}", description=descriptions[name])
    if name == "history":
        parser.add_argument("--json", action="store_true", help="JSON output")
        parser.add_argument("--search", default="", help="only tasks whose text contains this")
        parser.add_argument("--limit", type=int, default=50)
        parser.add_argument("--favorites", action="store_true", help="only starred tasks")
        parser.add_argument(
            "--cwd", help="only the tasks of this folder (default: every folder's tasks)"
        )
        return parser
    optional = name in ("show", "export")
    parser.add_argument(
        "id",
        nargs="?" if optional else None,
        help="task id (see `pycline history`)"
        + ("; default: the latest task in this folder" if optional else ""),
    )
    if name == "show":
        parser.add_argument("--json", action="store_true", help="the record and UI messages")
    if name == "export":
        parser.add_argument("-o", "--output", help="write to this file (default: standard output)")
    if name == "favorite":
        parser.add_argument("--off", action="store_true", help="remove the star")
    return parser


def run_tasks_command(name: str, argv: list[str]) -> int:
    from pycline.app.services.tasks import Tasks

    ns = build_parser(name).parse_args(argv)
    tasks = Tasks(pycline_home())
    try:
        match name:
            case "history":
                return _history(tasks, ns)
            case "show":
                return _show(tasks, ns)
            case "export":
                return _export(tasks, ns)
            case "delete":
                return _delete(tasks, ns.id)
            case "favorite":
                record = tasks.set_favorite(ns.id, not ns.off)
                state = "starred" if record.favorite else "no longer starred"
                print(f"Task {record.id} is {state}.")
                return 0
            case _:
                raise ValueError(f"not a task command: {name}")
    except PyclineError as exc:
        print(f"pycline: {exc}", file=sys.stderr)
        return 2


def _history(tasks: Tasks, ns: argparse.Namespace) -> int:
    folder = None if ns.cwd is None else Path(ns.cwd).expanduser()
    if folder is not None and not folder.is_dir():
        raise PyclineError(f"--cwd {ns.cwd}: not a folder")
    found = tasks.list(search=ns.search, limit=ns.limit, favorites=ns.favorites, workspace=folder)
    _report(found.problems)
    records = found.records
    if ns.json:
        print(json.dumps([r.to_json() for r in records], ensure_ascii=False, indent=1))
        return 0
    if not records:
        print("No tasks yet.")
        return 0
    folders = folder is None  # one folder asked for: no need to repeat it on every line
    print(history_header(folders=folders))
    for r in records:
        print(record_line(r, folders=folders))
    return 0


_FOLDER_WIDTH = 28


def history_header(*, folders: bool = True) -> str:
    folder = f"{'FOLDER':<{_FOLDER_WIDTH}}  " if folders else ""
    return (
        f" {'ID':<13}  {'WHEN':<16}  {'STATUS':<9}  {'TOKENS IN':>9} {'CACHED':>8} {'OUT':>6}  "
        f"{'COST':>7}  "
        f"{'SIZE':>8}  {folder}TASK"
    )


def record_line(r: TaskRecord, *, folders: bool = True) -> str:
    """One task under `history_header` (a star before a favourite's id)."""
    text = " ".join(r.task.split())
    if len(text) > 60:
        text = text[:59] + "…"
    star = "*" if r.favorite else " "
    folder = f"{short_folder(r.workspace):<{_FOLDER_WIDTH}}  " if folders else ""
    return (
        f"{star}{r.id:<13}  {_when(r.ts)}  {r.status:<9}  {r.tokens_in:>9} {r.cache_reads:>8} "
        f"{r.tokens_out:>6}  ${r.total_cost:>6.4f}  {human_size(r.size):>8}  {folder}{text}"
    )


def short_folder(workspace: str) -> str:
    """The folder as a person says it: `~/proj`, and its end when it is long."""
    home = str(Path.home())
    shown = "~" + workspace[len(home) :] if workspace.startswith(home + "/") else workspace
    if len(shown) > _FOLDER_WIDTH:
        shown = "…" + shown[-(_FOLDER_WIDTH - 1) :]
    return shown


def _show(tasks: Tasks, ns: argparse.Namespace) -> int:
    from pycline.app.services.tasks import transcript_summary

    details = tasks.show(ns.id, workspace=Path.cwd())
    record, size, ui, ui_problem = details.record, details.size, details.messages, details.problem
    if ns.json:
        data = {"record": {**record.to_json(), "size": size}, "messages": [m.to_json() for m in ui]}
        print(json.dumps(data, ensure_ascii=False, indent=1))
    else:
        _print_record(record, size)
        print()
        for line in transcript_summary(details.events):
            print(line)
    if ui_problem is not None:
        print(f"pycline: the task's messages cannot be shown: {ui_problem}", file=sys.stderr)
        return 1
    return 0


def _print_record(r: TaskRecord, size: int) -> None:
    rows = [
        ("Task", f"{r.id}{'  (starred)' if r.favorite else ''}"),
        ("Text", " ".join(r.task.split())),
        ("When", _when(r.ts)),
        ("Status", r.status),
        ("Workspace", r.workspace),
        ("Model", f"{r.provider}/{r.model}" if r.provider else r.model),
        ("Tokens", f"{r.tokens_in} in, {r.tokens_out} out"),
        ("Cache", f"{r.cache_reads} read, {r.cache_writes} written"),
        ("Cost", f"${r.total_cost:.4f}"),
        ("Size", human_size(size)),
    ]
    if len(r.model_costs) > 1:  # a fallback model took over: what each one cost
        each = ", ".join(f"{m} ${c:.4f}" for m, c in r.model_costs.items())
        rows.insert(-1, ("By model", each))
    if r.goal:
        rows.insert(-1, ("Verify", r.goal))
    for label, value in rows:
        print(f"{label + ':':<11}{value}")


def _export(tasks: Tasks, ns: argparse.Namespace) -> int:
    to = Path(ns.output) if ns.output is not None else None
    exported = tasks.export(ns.id, workspace=Path.cwd(), to=to)
    if exported.path is None:
        sys.stdout.write(exported.markdown)
    else:
        print(f"Exported task {exported.task_id} to {exported.path}")
    return 0


def _delete(tasks: Tasks, task_id: str) -> int:
    import asyncio

    deleted = asyncio.run(tasks.delete(task_id))
    note = f" {deleted.note}" if deleted.note else ""
    print(f"Deleted task {deleted.task_id}.{note}")
    return 0
