"""The history index: one SQLite row per task, safe with several pycline processes at once.

The index is a cache of the task folders' `task_metadata.json`: when the database file is
damaged it is set aside and an empty one created (`recreated` tells the store to refill it).
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

from pycline.errors import StorageError
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

_FIELDS = (
    "id",
    "ts",
    "task",
    "workspace",
    "provider",
    "model",
    "tokens_in",
    "tokens_out",
    "cache_writes",
    "cache_reads",
    "total_cost",
    "status",
    "size",
    "favorite",
)
_COLUMNS = ", ".join(_FIELDS)
# A task's own saves never change `favorite`: the user may star a task while it runs, and the
# running process's in-memory record must not undo that.
_UPSERT = (
    f"INSERT INTO tasks ({_COLUMNS}) VALUES ({', '.join('?' * len(_FIELDS))}) "
    "ON CONFLICT(id) DO UPDATE SET "
    + ", ".join(f"{f} = excluded.{f}" for f in _FIELDS if f not in ("id", "favorite"))
    + " RETURNING favorite"
)
_SIDE_FILES = ("-wal", "-shm", "-journal")


def _private(path: Path) -> None:
    """The index readable by this user only: SQLite makes its files with the umask, and its
    `-wal` and `-shm` files with the mode of the database file."""
    with contextlib.suppress(OSError):
        for suffix in ("", *_SIDE_FILES):
            with contextlib.suppress(FileNotFoundError):
                side = f"{path}{suffix}"
                if os.stat(side).st_mode & 0o077:
                    os.chmod(side, 0o600)


class HistoryIndex:
    def __init__(self, path: Path) -> None:
        self.path = path
        # One connection, opened on first use and shared by the threads that save tasks (the
        # lock serialises them); opening SQLite costs more than the write itself.
        self._conn: sqlite3.Connection | None = None
        self._lock = threading.RLock()
        self.recreated = not path.exists()  # True: the store should fill it from the folders
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._create()
        except sqlite3.DatabaseError:
            self.reset()

    def _create(self) -> None:
        with closing(self._connect()) as db, db:
            db.executescript(_SCHEMA)
            # A file that is a database but not ours (or an older schema) is as good as corrupt.
            names = {row[1] for row in db.execute("PRAGMA table_info(tasks)")}
            if not set(_FIELDS) <= names:
                raise sqlite3.DatabaseError(f"{self.path} has an unexpected schema")
        # Made by SQLite with the umask (inside the 0700 data folder): made private at once.
        _private(self.path)

    def reset(self) -> None:
        """Set a damaged database aside and start an empty one (to be refilled)."""
        self.close()
        self._set_aside()
        self.recreated = True
        self._create()

    def _set_aside(self) -> None:
        # Kept, not deleted: the user may want to look at it. Several processes may find the
        # damage at once; whoever renames first wins and the others find the new file.
        stamp = time.strftime("%Y%m%d-%H%M%S")
        for suffix in ("", *_SIDE_FILES):
            src = Path(f"{self.path}{suffix}")
            with contextlib.suppress(FileNotFoundError):
                os.replace(src, Path(f"{self.path}.corrupt-{stamp}{suffix}"))

    def _connect(self) -> sqlite3.Connection:
        # WAL lets readers and one writer work at once; busy_timeout makes concurrent writers wait
        # instead of failing with "database is locked".
        db = sqlite3.connect(self.path, timeout=10, check_same_thread=False)
        db.execute("PRAGMA busy_timeout=10000")
        db.execute("PRAGMA journal_mode=WAL")
        # The index is a cache of the task folders (rebuilt from them when damaged): it needs no
        # fsync per commit, which would cost more than everything else a turn saves.
        db.execute("PRAGMA synchronous=NORMAL")
        return db

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    @contextlib.contextmanager
    def _db(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            try:
                if self._conn is None:
                    self._conn = self._connect()
                db = self._conn
                db.row_factory = None
                with db:
                    yield db
            except sqlite3.DatabaseError as exc:
                self.close()  # reopened on next use: the file may have been replaced
                raise StorageError(f"The history index {self.path} cannot be used: {exc}") from exc

    def upsert(self, r: TaskRecord) -> bool:
        """Insert or update a task's row; returns the favourite flag the index holds for it."""
        values = (
            r.id, r.ts, r.task, r.workspace, r.provider, r.model, r.tokens_in, r.tokens_out,
            r.cache_writes, r.cache_reads, r.total_cost, r.status, r.size, int(r.favorite),
        )  # fmt: skip
        with self._db() as db:
            row = db.execute(_UPSERT, values).fetchone()
        return bool(row[0]) if row else r.favorite

    def restore(self, r: TaskRecord) -> None:
        """Write a row exactly as given, favourite included (used when rebuilding the index)."""
        with self._db() as db:
            db.execute(
                f"INSERT OR REPLACE INTO tasks ({_COLUMNS}) VALUES "
                f"({', '.join('?' * len(_FIELDS))})",
                tuple(int(v) if isinstance(v, bool) else v for v in map(r.to_json().get, _FIELDS)),
            )

    def get(self, task_id: str) -> TaskRecord | None:
        with self._db() as db:
            db.row_factory = sqlite3.Row
            row = db.execute(f"SELECT {_COLUMNS} FROM tasks WHERE id = ?", (task_id,)).fetchone()
        return _record(row) if row is not None else None

    def ids(self) -> set[str]:
        with self._db() as db:
            return {row[0] for row in db.execute("SELECT id FROM tasks")}

    def set_favorite(self, task_id: str, favorite: bool) -> bool:
        """True when the task has a row (and so was updated)."""
        with self._db() as db:
            cur = db.execute("UPDATE tasks SET favorite = ? WHERE id = ?", (int(favorite), task_id))
            return cur.rowcount > 0

    def list(
        self,
        *,
        search: str = "",
        workspace: str | None = None,
        favorites_only: bool = False,
        limit: int = 100,
    ) -> list[TaskRecord]:
        query = f"SELECT {_COLUMNS} FROM tasks WHERE task LIKE ? ESCAPE '\\'"
        args: list[object] = ["%" + _escape_like(search) + "%"]
        if workspace is not None:
            query += " AND workspace = ?"
            args.append(workspace)
        if favorites_only:
            query += " AND favorite = 1"
        query += " ORDER BY ts DESC LIMIT ?"
        args.append(limit)
        with self._db() as db:
            db.row_factory = sqlite3.Row
            rows = db.execute(query, args).fetchall()
        return [_record(row) for row in rows]

    def delete(self, task_id: str) -> None:
        with self._db() as db:
            db.execute("DELETE FROM tasks WHERE id = ?", (task_id,))


def _escape_like(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def _record(row: sqlite3.Row) -> TaskRecord:
    data = dict(zip(row.keys(), tuple(row), strict=True))
    data["favorite"] = bool(data["favorite"])
    return TaskRecord.from_json(data)
