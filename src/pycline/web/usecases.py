"""The saved-task use cases the UI needs, returning data: history, export, delete, checkpoints.

These mirror what `pycline history/show/export/delete/checkpoints/diff/restore` do; when the
session layer's `app/` use cases exist, these become thin calls to them.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pycline.checkpoints.types import Checkpoint, CheckpointError
from pycline.core.checkpointing import commit_message, label_of, task_of
from pycline.storage.records import TaskRecord
from pycline.storage.task_store import TaskStore

Sort = Literal["newest", "oldest", "cost", "tokens"]
RestoreMode = Literal["both", "workspace", "task"]
SORT_KEYS: dict[str, Any] = {
    "newest": lambda r: -r.ts,
    "oldest": lambda r: r.ts,
    "cost": lambda r: -r.total_cost,
    "tokens": lambda r: -(r.tokens_in + r.tokens_out),
}


def history(
    store: TaskStore,
    *,
    search: str = "",
    sort: str = "newest",
    workspace: str | None = None,
    favorites_only: bool = False,
    limit: int = 500,
) -> list[dict[str, Any]]:
    records = store.index.list(
        search=search, workspace=workspace, favorites_only=favorites_only, limit=limit
    )
    records.sort(key=SORT_KEYS.get(sort, SORT_KEYS["newest"]))
    return [r.to_json() for r in records]


def export(store: TaskStore, task_id: str) -> str:
    from pycline.storage.export import export_markdown

    return export_markdown(store.open(task_id).load_api_history())


async def delete(store: TaskStore, task_id: str) -> None:
    record = store.index.get(task_id)
    await asyncio.to_thread(store.delete, task_id)
    if record is not None and record.workspace:
        await _forget_checkpoints(store, record)


async def _forget_checkpoints(store: TaskStore, record: TaskRecord) -> None:
    tracker = _tracker(store, record)
    if not (tracker.git_dir / "HEAD").exists() or not Path(record.workspace).is_dir():
        return
    try:
        mine = [c.commit for c in await tracker.list() if task_of(c.message) == record.id]
        await tracker.forget(mine)
    except CheckpointError:
        return  # the checkpoints stay; deleting the task itself succeeded


def _tracker(store: TaskStore, record: TaskRecord) -> Any:
    from pycline.checkpoints import ShadowGit

    return ShadowGit(Path(record.workspace), store.home)


async def _checkpoints(store: TaskStore, record: TaskRecord) -> list[Checkpoint]:
    tracker = _tracker(store, record)
    if not (tracker.git_dir / "HEAD").exists():
        return []
    return [c for c in await tracker.list() if task_of(c.message) == record.id]


async def checkpoints(store: TaskStore, task_id: str) -> list[dict[str, Any]]:
    record = store.open(task_id).load_record()
    return [
        {"commit": c.commit, "time": c.created_at.isoformat(), "label": label_of(c.message)}
        for c in await _checkpoints(store, record)
    ]


async def _checkpoint(store: TaskStore, task_id: str, commit: str) -> tuple[TaskRecord, str]:
    """The task's own checkpoint `commit` (never another task's, never an arbitrary ref)."""
    record = store.open(task_id).load_record()
    found = [c.commit for c in await _checkpoints(store, record) if c.commit == commit]
    if not found:
        raise CheckpointError(f"Task {task_id} has no checkpoint {commit[:12]}.")
    return record, found[0]


@dataclass(frozen=True, slots=True)
class ChangedFile:
    path: str
    status: str
    diff: str
    added: int
    removed: int


async def compare(store: TaskStore, task_id: str, commit: str) -> list[dict[str, Any]]:
    """What changed in the workspace since the checkpoint (Cline's Compare)."""
    record, commit = await _checkpoint(store, task_id, commit)
    changes = await _tracker(store, record).diff(commit, None)
    out = []
    for change in changes:
        diff = change.unified_diff
        lines = diff.splitlines()
        added = sum(1 for x in lines if x.startswith("+") and not x.startswith("+++"))
        removed = sum(1 for x in lines if x.startswith("-") and not x.startswith("---"))
        out.append(
            {
                "path": change.path,
                "status": change.status,
                "diff": diff,
                "added": added,
                "removed": removed,
            }
        )
    return out


async def restore(store: TaskStore, task_id: str, commit: str, mode: RestoreMode) -> dict[str, Any]:
    """Files & Task, Files Only or Task Only: as `pycline restore` does."""
    from pycline.storage.rewind import check, rewind

    record, commit = await _checkpoint(store, task_id, commit)
    folder = store.open(task_id)
    result: dict[str, Any] = {}
    if mode in ("task", "both"):
        check(folder, commit)  # first, so Files & Task never does half its job
    if mode in ("workspace", "both"):
        tracker = _tracker(store, record)
        undo = await tracker.commit(commit_message(record.id, f"before restoring {commit[:10]}"))
        done = await tracker.restore(commit)
        result.update(
            written=done.written, deleted=done.deleted, skipped=list(done.skipped), undo=undo
        )
    if mode in ("task", "both"):
        rewound = rewind(folder, commit)
        result["messages_removed"] = rewound.api_messages_removed
    return result


def find_files(root: Path, query: str, *, limit: int = 50) -> list[dict[str, str]]:
    """Files and folders for the @ menu, best fuzzy matches first (ignore rules respected)."""
    from rapidfuzz import fuzz, process

    from pycline.workspace.ignore import IgnoreRules

    rules = IgnoreRules.load(root)
    entries: list[str] = []
    skip = {".git", "node_modules", ".venv", "__pycache__"}
    for path in _walk(root, skip, budget=20_000):
        if not rules.blocked(path):
            entries.append(path.relative_to(root).as_posix() + ("/" if path.is_dir() else ""))
    if query:
        ranked = process.extract(query, entries, scorer=fuzz.WRatio, limit=limit)
        names = [name for name, score, _ in ranked if score > 40]
    else:
        names = sorted(entries, key=lambda e: (e.count("/"), e))[:limit]
    return [{"path": n, "type": "folder" if n.endswith("/") else "file"} for n in names]


def _walk(root: Path, skip: set[str], *, budget: int) -> list[Path]:
    found: list[Path] = []
    stack = [root]
    while stack and len(found) < budget:
        folder = stack.pop()
        try:
            children = sorted(folder.iterdir())
        except OSError:
            continue
        for child in children:
            if child.name in skip or child.is_symlink():
                continue
            found.append(child)
            if child.is_dir():
                stack.append(child)
    return found
