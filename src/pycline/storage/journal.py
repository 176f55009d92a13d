"""A task's append-only journal, and the writer that is the only writer of a task's files.

Rewriting `api_conversation_history.json` after every message makes each save cost as much as the
whole history. Instead every change is one line appended to `journal.jsonl`; Cline's files are
rewritten from it only when the task ends (`TaskRecorder.close`), and readers (`TaskFolder.load_*`)
apply the journal over them, so the two are always read together. The same writer appends the
task's event log (`storage.event_log`, what the task showed), which is never folded away.

Every line is idempotent (`api` puts a message *at* an index, `record` replaces the record), so a
process killed after folding the journal into the files but before removing it leaves a state that
reads the same. A line cut short by a kill is ignored: the next writer (a resumed task) starts on a
fresh line (`open_for_append`), and every line after the torn one is read, since that writer began
from the state the torn line left out. (Journals of earlier versions also hold `ui` lines, Cline's
UI log: they are still read.)

With `background=True` the writes happen on a thread of their own, in order; the task awaits
`flush()` only where a kill must not lose what it just did (a reply before its tool runs, a
question before it is shown).
"""

from __future__ import annotations

import asyncio
import json
import os
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from pycline.messages import Message
from pycline.parsing.surrogates import clean
from pycline.storage.records import TaskRecord


class JournaledFolder(Protocol):
    """What the recorder needs of a task folder (`TaskFolder`)."""

    @property
    def path(self) -> Path: ...

    @property
    def id(self) -> str: ...

    def disk_size(self) -> int: ...

    def index_record(self, record: TaskRecord) -> bool: ...

    def fold_journal(self) -> int: ...

    def write_ui_messages(self) -> int: ...

    @property
    def events_path(self) -> Path: ...


JOURNAL = "journal.jsonl"
# Seconds between history-index updates of a running task (its status changes are written at
# once): each update is a SQLite commit, pages written to disk, for a figure only a listing shows.
INDEX_EVERY = 10.0
BATCH_DELAY = 0.05  # seconds a change may wait for the writer thread when nothing flushes


@dataclass(slots=True)
class Replayed:
    """What the journal changes, applied over the folder's files (None: the journal is silent)."""

    api: list[dict[str, Any]] | None = None
    ui: list[dict[str, Any]] | None = None
    record: dict[str, Any] | None = None
    context: Any = None
    has_context: bool = False
    changed: set[str] = field(default_factory=set)


def entries(path: Path) -> Iterator[dict[str, Any]]:
    """The journal's lines that are complete JSON objects; a line torn by a kill is skipped."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return
    for line in data.split(b"\n"):
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
        except (json.JSONDecodeError, UnicodeDecodeError, RecursionError):
            continue
        if isinstance(entry, dict):
            yield entry


def open_for_append(path: Path) -> int:
    """A descriptor appending to the journal at `path`, on a line of its own: when a kill tore
    the last line (no newline at the end), a newline is written first, so the torn bytes stay a
    line that readers skip instead of swallowing the first new record."""
    fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        size = os.fstat(fd).st_size
        if size and os.pread(fd, 1, size - 1) != b"\n":
            os.write(fd, b"\n")
    except BaseException:
        os.close(fd)
        raise
    return fd


def replay(
    path: Path,
    load_api: Callable[[], list[dict[str, Any]]],
    load_ui: Callable[[], list[dict[str, Any]]],
) -> Replayed:
    """Apply the journal at `path` over the base lists (loaded only when the journal needs them)."""
    out = Replayed()
    for entry in entries(path):
        kind = entry.get("k")
        if kind in ("api", "api*"):
            if out.api is None:
                out.api = load_api() if kind == "api" else []
            if not _apply(out.api, entry, kind == "api*"):
                break
            out.changed.add("api")
        elif kind in ("ui", "ui*", "ui~"):
            if out.ui is None:
                out.ui = load_ui() if kind != "ui*" else []
            if not _apply(out.ui, entry, kind == "ui*", in_place=kind == "ui~"):
                break
            out.changed.add("ui")
        elif kind == "record" and isinstance(entry.get("r"), dict):
            out.record = entry["r"]
        elif kind == "context":
            out.context, out.has_context = entry.get("c"), True
        else:
            break  # written by a newer pycline, or damaged: stop where it is still understood
    return out


def _apply(
    items: list[dict[str, Any]], entry: dict[str, Any], whole: bool, *, in_place: bool = False
) -> bool:
    if whole:
        new = entry.get("all")
        if not isinstance(new, list):
            return False
        items[:] = new
        return True
    index, message = entry.get("i"), entry.get("m")
    if not isinstance(index, int) or not isinstance(message, dict) or index < 0:
        return False
    if in_place:
        if index >= len(items):
            return False
        items[index] = message
    else:
        if index > len(items):
            return False
        del items[index:]
        items.append(message)
    return True


def _line(entry: dict[str, Any]) -> bytes:
    text = json.dumps(entry, default=_encode, ensure_ascii=False, separators=(",", ":")) + "\n"
    try:
        return text.encode()
    except UnicodeEncodeError:
        # A lone surrogate that got past the edges has no UTF-8 form: saved as U+FFFD, the
        # line stays readable and the rest of the journal with it.
        return clean(text).encode()


def _encode(value: object) -> Any:
    if isinstance(value, Message):
        return value.to_json()
    raise TypeError(f"cannot journal {type(value).__name__}")


class TaskRecorder:
    """Turns the task's state changes into journal lines and writes them, in order, with the
    lines of its event log.

    It is told what changed (`history_changed`, `record_changed`, …) and works out what is new
    since the last call, so a turn costs the same however long the task has run.
    """

    def __init__(self, folder: JournaledFolder, *, background: bool = False) -> None:
        self.folder = folder
        self._path = folder.path / JOURNAL
        self._fd: int | None = None
        self._pool = ThreadPoolExecutor(1, f"recorder-{folder.id}") if background else None
        self._events_fd: int | None = None
        self._batch: list[_Write] = []
        self._kicker: asyncio.TimerHandle | None = None
        self._last: Future[None] | None = None
        # How much of each list the journal holds, and its last item (compared by identity: a
        # list that no longer starts with what was written was replaced, e.g. by condensing).
        self._api = _Written()
        self._indexed_status = ""
        self._indexed_at = 0.0
        self._pending_index: tuple[TaskRecord, dict[str, Any]] | None = None
        self._last_record: dict[str, Any] | None = None
        self.bytes_written = 0
        self.seconds_writing = 0.0  # time spent writing (on whichever thread writes)

    def start_from(self, history: Sequence[Message]) -> None:
        """The task resumes with what the folder already holds: only changes are written."""
        self._api.mark(history)

    # --- changes --------------------------------------------------------------------------------

    def history_changed(self, history: Sequence[Message]) -> None:
        # Messages are immutable: they are encoded on the writer thread.
        self._submit(self._api.entries(history, "api", lambda m: m))

    def events(self, lines: bytes, *, now: bool = False) -> None:
        """Lines for the event log (`storage.event_log`); `now`: hand them to the writer at once
        rather than with the next batch (what a kill must not lose)."""
        self._submit([], events=lines)
        if now:
            self._kick()

    def record_changed(self, record: TaskRecord) -> None:
        snapshot = record.to_json()
        if snapshot == self._last_record and self._pending_index is None:
            return  # told again with nothing new (each question says it): nothing to write
        self._last_record = snapshot
        now = time.monotonic()
        # The history index is a listing cache: it follows a running task every few seconds
        # and on every status change, not on every save.
        index = record.status != self._indexed_status or now - self._indexed_at > INDEX_EVERY
        entry = {"k": "record", "r": snapshot}
        if index:
            self._indexed_status, self._indexed_at = record.status, now
            self._pending_index = None
            self._submit([entry], after=lambda: self._index(record, snapshot))
        else:
            self._pending_index = (record, snapshot)
            self._submit([entry])

    def context_changed(self, state: Any) -> None:
        self._submit([{"k": "context", "c": state}])

    async def flush(self) -> None:
        """Wait until everything said so far is written (the loop keeps running meanwhile)."""
        self._kick()
        if self._last is not None and not self._last.done():
            # Shielded: a cancelled task must not cancel the write of what it already said.
            await asyncio.shield(asyncio.wrap_future(self._last))

    async def close(self) -> None:
        """Write Cline's files from the journal and the event log (for export and other
        readers), then stop."""
        if self._pending_index is not None:
            record, snapshot = self._pending_index
            self._pending_index = None
            self._submit([], after=lambda: self._index(record, snapshot))
        self._submit([], after=self._fold)
        await self.flush()
        if self._pool is not None:
            self._pool.shutdown(wait=False)
            self._pool = None

    # --- writing --------------------------------------------------------------------------------

    def _submit(
        self,
        entries: list[dict[str, Any]],
        *,
        events: bytes = b"",
        after: Callable[[], None] | None = None,
    ) -> None:
        if not entries and not events and after is None:
            return
        if self._pool is None:
            self._write(_Write(entries, events, after))
            return
        # Changes go to the thread in batches: each hand-over to a thread costs more than writing
        # a line. A batch leaves at the next flush (the points a kill must not undo) or after
        # BATCH_DELAY at the latest.
        self._batch.append(_Write(entries, events, after))
        if self._kicker is None:
            self._kicker = asyncio.get_running_loop().call_later(BATCH_DELAY, self._kick)

    def _kick(self) -> None:
        if self._kicker is not None:
            self._kicker.cancel()
            self._kicker = None
        if self._batch and self._pool is not None:
            batch, self._batch = self._batch, []
            self._last = self._pool.submit(self._write_batch, batch)

    def _write_batch(self, batch: list[_Write]) -> None:
        for write in batch:
            self._write(write)

    def _write(self, write: _Write) -> None:
        started = time.perf_counter()
        if write.entries:
            data = b"".join(_line(e) for e in write.entries)
            if self._fd is None:
                self._fd = open_for_append(self._path)
            os.write(self._fd, data)  # one write: a kill leaves whole lines or a torn last one
            self.bytes_written += len(data)
        if write.events:
            if self._events_fd is None:
                self._events_fd = open_for_append(self.folder.events_path)
            os.write(self._events_fd, write.events)
            self.bytes_written += len(write.events)
        if write.after is not None:
            write.after()
        self.seconds_writing += time.perf_counter() - started

    def _index(self, record: TaskRecord, snapshot: dict[str, Any]) -> None:
        if not self.folder.path.is_dir():
            return  # the task was deleted while it ran: a late update must not list it again
        saved = TaskRecord.from_json(snapshot)
        saved.size = self.folder.disk_size()
        # Starred or unstarred by another process while this task runs: the index wins.
        record.favorite = self.folder.index_record(saved)

    def _fold(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
        if self._events_fd is not None:
            os.close(self._events_fd)
            self._events_fd = None
        self.bytes_written += self.folder.fold_journal()
        self.bytes_written += self.folder.write_ui_messages()


@dataclass(frozen=True, slots=True)
class _Write:
    entries: list[dict[str, Any]]  # journal lines
    events: bytes = b""  # event log lines, encoded
    after: Callable[[], None] | None = None


class _Written:
    def __init__(self) -> None:
        self.count = 0
        self.last: object = None

    def mark(self, items: Sequence[Any]) -> None:
        self.count = len(items)
        self.last = items[-1] if items else None

    def entries(
        self, now: Sequence[Any], kind: str, snapshot: Callable[[Any], Any]
    ) -> list[dict[str, Any]]:
        n = self.count
        appended = len(now) >= n and (n == 0 or now[n - 1] is self.last)
        if appended:
            out = [{"k": kind, "i": i, "m": snapshot(now[i])} for i in range(n, len(now))]
        else:
            out = [{"k": f"{kind}*", "all": [snapshot(m) for m in now]}]
        self.mark(now)
        return out
