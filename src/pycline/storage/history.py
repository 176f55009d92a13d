"""The history index: one SQLite row per task, safe with several pycline processes at once."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

from pycline.storage.records import TaskRecord

_SCHEMA = """
CREATE TABLE IF NOT EXISTS tasks (
    id TEXT PRIMARY KEY,
    ts REAL NOT NULL,
    task TEXT NOT NULL,
    workspace TEXT NOT NULL,
    provider TEXT NOT NULL DEFAULT '',
    model TEXT NOT NULL DEFAULT '',
    tokens_in INTEGER NOT NULL DEFAULT 0,
    tokens_out INTEGER NOT NULL DEFAULT 0,
    cache_writes INTEGER NOT NULL DEFAULT 0,
    cache_reads INTEGER NOT NULL DEFAULT 0,
    total_cost REAL NOT NULL DEFAULT 0,
    status TEXT NOT NULL DEFAULT 'running',
    size INTEGER NOT NULL DEFAULT 0,
    favorite INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS tasks_ts ON tasks (ts);
"""

_COLUMNS = (
    "id, ts, task, workspace, provider, model, tokens_in, tokens_out, cache_writes, cache_reads, "
    "total_cost, status, size, favorite"
)


class HistoryIndex:
    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        with closing(self._connect()) as db, db:
            db.executescript(_SCHEMA)

    def _connect(self) -> sqlite3.Connection:
        # WAL lets readers and one writer work at once; busy_timeout makes concurrent writers wait
        # instead of failing with "database is locked".
        db = sqlite3.connect(self.path, timeout=10)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA busy_timeout=10000")
        return db

    def upsert(self, r: TaskRecord) -> None:
        with closing(self._connect()) as db, db:
            db.execute(
                f"INSERT OR REPLACE INTO tasks ({_COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (
                    r.id, r.ts, r.task, r.workspace, r.provider, r.model, r.tokens_in,
                    r.tokens_out, r.cache_writes, r.cache_reads, r.total_cost, r.status, r.size,
                    int(r.favorite),
                ),
            )  # fmt: skip

    def list(
        self, *, search: str = "", workspace: str | None = None, limit: int = 100
    ) -> list[TaskRecord]:
        query = f"SELECT {_COLUMNS} FROM tasks WHERE task LIKE ? ESCAPE '\\'"
        args: list[object] = ["%" + _escape_like(search) + "%"]
        if workspace is not None:
            query += " AND workspace = ?"
            args.append(workspace)
        query += " ORDER BY ts DESC LIMIT ?"
        args.append(limit)
        with closing(self._connect()) as db:
            db.row_factory = sqlite3.Row
            rows = db.execute(query, args).fetchall()
        return [_record(row) for row in rows]

    def delete(self, task_id: str) -> None:
        with closing(self._connect()) as db, db:
            db.execute("DELETE FROM tasks WHERE id = ?", (task_id,))


def _escape_like(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def _record(row: sqlite3.Row) -> TaskRecord:
    data = dict(zip(row.keys(), tuple(row), strict=True))
    data["favorite"] = bool(data["favorite"])
    return TaskRecord.from_json(data)
