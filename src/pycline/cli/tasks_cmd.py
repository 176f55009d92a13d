"""Saved tasks from the terminal: `history`, `show`, `export`, `delete`, `favorite`."""

from __future__ import annotations

import argparse
import datetime as dt
import json
import sys
from pathlib import Path

from pycline.errors import PyclineError, StorageError
from pycline.storage.paths import pycline_home
from pycline.storage.records import TaskRecord
from pycline.storage.task_store import Problem, TaskFolder, TaskStore

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


def _parser(name: str) -> argparse.ArgumentParser:
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
    ns = _parser(name).parse_args(argv)
    store = TaskStore(pycline_home())
    try:
        match name:
            case "history":
                return _history(store, ns)
            case "show":
                return _show(store, ns)
            case "export":
                return _export(store, ns)
            case "delete":
                return _delete(store, ns.id)
            case "favorite":
                record = store.open(ns.id).set_favorite(not ns.off)
                state = "starred" if record.favorite else "no longer starred"
                print(f"Task {record.id} is {state}.")
                return 0
            case _:
                raise ValueError(f"not a task command: {name}")
    except PyclineError as exc:
        print(f"pycline: {exc}", file=sys.stderr)
        return 2


def _history(store: TaskStore, ns: argparse.Namespace) -> int:
    _report(store.sync())
    records = store.index.list(search=ns.search, limit=ns.limit, favorites_only=ns.favorites)
    if ns.json:
        print(json.dumps([r.to_json() for r in records], ensure_ascii=False, indent=1))
        return 0
    if not records:
        print("No tasks yet.")
        return 0
    for r in records:
        print(record_line(r))
    return 0


def record_line(r: TaskRecord) -> str:
    text = " ".join(r.task.split())
    if len(text) > 60:
        text = text[:59] + "…"
    star = "*" if r.favorite else " "
    return (
        f"{star}{r.id}  {_when(r.ts)}  {r.status:<9}  {r.tokens_in:>7} in {r.tokens_out:>6} out"
        f"  ${r.total_cost:.4f}  {human_size(r.size):>8}  {text}"
    )


def _folder(store: TaskStore, task_id: str | None) -> TaskFolder:
    if task_id is None:
        cwd = str(Path.cwd().resolve())
        task_id = store.latest(cwd)
        if task_id is None:
            raise StorageError(f"No task in {cwd}; give a task id (see `pycline history`).")
    return store.open(task_id)


def _show(store: TaskStore, ns: argparse.Namespace) -> int:
    from pycline.storage.export import transcript_summary

    folder = _folder(store, ns.id)
    record = folder.load_record()
    size = folder.disk_size()
    try:
        ui = folder.load_ui_messages()
        ui_problem = None
    except StorageError as exc:
        ui, ui_problem = [], str(exc)
    if ns.json:
        data = {"record": {**record.to_json(), "size": size}, "messages": [m.to_json() for m in ui]}
        print(json.dumps(data, ensure_ascii=False, indent=1))
    else:
        _print_record(record, size)
        print()
        for line in transcript_summary(ui):
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
    for label, value in rows:
        print(f"{label + ':':<11}{value}")


def _export(store: TaskStore, ns: argparse.Namespace) -> int:
    from pycline.storage.atomic import atomic_write_text
    from pycline.storage.export import export_markdown

    folder = _folder(store, ns.id)
    text = export_markdown(folder.load_api_history())
    if ns.output is None:
        sys.stdout.write(text)
        return 0
    path = Path(ns.output).expanduser()
    if path.is_dir():
        from pycline.storage.export import export_file_name

        path = path / export_file_name(float(folder.id) / 1000 if folder.id.isdigit() else 0)
    try:
        atomic_write_text(path, text)
    except OSError as exc:
        raise StorageError(f"Cannot write {path}: {exc}") from exc
    print(f"Exported task {folder.id} to {path}")
    return 0


def _delete(store: TaskStore, task_id: str) -> int:
    folder = store.open(task_id)
    try:
        record: TaskRecord | None = folder.load_record()
    except StorageError:
        record = store.index.get(task_id)  # metadata damaged: the index may still know the rest
    store.delete(task_id)
    note = ""
    if record is not None and record.workspace:
        from pycline.cli.checkpoints_cmd import forget_task_checkpoints

        note = forget_task_checkpoints(store, record)
    print(f"Deleted task {task_id}.{' ' + note if note else ''}")
    return 0
