"""A task's append-only journal, and the recorder that is the only writer of a task's files.

Rewriting `api_conversation_history.json` after every message makes each save cost as much as the
whole history. Instead every change is one line appended to `journal.jsonl`; Cline's files are
rewritten from it only when the task ends (`TaskRecorder.close`), and readers (`TaskFolder.load_*`)
apply the journal over them, so the two are always read together.

Every line is idempotent (`api` puts a message *at* an index, `record` replaces the record), so a
process killed after folding the journal into the files but before removing it leaves a state that
reads the same. A line cut short by a kill is ignored: the next writer (a resumed task) starts on a
fresh line (`open_for_append`), and every line after the torn one is read, since that writer began
from the state the torn line left out.

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

from pycline.messages import Message, UiMessage
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


JOURNAL = "journal.jsonl"
INDEX_EVERY = 2.0  # seconds between history-index updates of a running task
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
    """Turns the task's state changes into journal lines and writes them, in order.

    The task tells it what changed (`history_changed`, `ui_changed`, …); the recorder works out
    what is new since the last call, so a turn costs the same however long the task has run.
    """

    def __init__(self, folder: JournaledFolder, *, background: bool = False) -> None:
        self.folder = folder
        self._path = folder.path / JOURNAL
        self._fd: int | None = None
        self._pool = ThreadPoolExecutor(1, f"recorder-{folder.id}") if background else None
        self._batch: list[tuple[list[dict[str, Any]], Callable[[], None] | None]] = []
        self._kicker: asyncio.TimerHandle | None = None
        self._last: Future[None] | None = None
        # How much of each list the journal holds, and its last item (compared by identity: a
        # list that no longer starts with what was written was replaced, e.g. by condensing).
        self._api = _Written()
        self._ui = _Written()
        self._indexed_status = ""
        self._indexed_at = 0.0
        self._pending_index: tuple[TaskRecord, dict[str, Any]] | None = None
        self.bytes_written = 0
        self.seconds_writing = 0.0  # time spent writing (on whichever thread writes)

    def start_from(self, history: Sequence[Message], ui: Sequence[UiMessage]) -> None:
        """The task resumes with what the folder already holds: only changes are written."""
        self._api.mark(history)
        self._ui.mark(ui)

    # --- changes --------------------------------------------------------------------------------

    def history_changed(self, history: Sequence[Message]) -> None:
        # Messages are immutable: they are encoded on the writer thread.
        self._submit(self._api.entries(history, "api", lambda m: m))

    def ui_changed(self, ui: Sequence[UiMessage]) -> None:
        # UI messages may be edited later: snapshot them now, encode them on the writer thread.
        self._submit(self._ui.entries(ui, "ui", lambda m: m.to_json()))

    def ui_edited(self, ui: Sequence[UiMessage], index: int) -> None:
        """A message already written was changed in place (a checkpoint's hash on its turn)."""
        if index < self._ui.count:
            self._submit([{"k": "ui~", "i": index, "m": ui[index].to_json()}])

    def record_changed(self, record: TaskRecord) -> None:
        snapshot = record.to_json()
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
        """Write Cline's files from the journal (for export and other readers), then stop."""
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
        self, entries: list[dict[str, Any]], *, after: Callable[[], None] | None = None
    ) -> None:
        if not entries and after is None:
            return
        if self._pool is None:
            self._write(entries, after)
            return
        # Changes go to the thread in batches: each hand-over to a thread costs more than writing
        # a line. A batch leaves at the next flush (the points a kill must not undo) or after
        # BATCH_DELAY at the latest.
        self._batch.append((entries, after))
        if self._kicker is None:
            self._kicker = asyncio.get_running_loop().call_later(BATCH_DELAY, self._kick)

    def _kick(self) -> None:
        if self._kicker is not None:
            self._kicker.cancel()
            self._kicker = None
        if self._batch and self._pool is not None:
            batch, self._batch = self._batch, []
            self._last = self._pool.submit(self._write_batch, batch)

    def _write_batch(
        self, batch: list[tuple[list[dict[str, Any]], Callable[[], None] | None]]
    ) -> None:
        for entries, after in batch:
            self._write(entries, after)

    def _write(self, entries: list[dict[str, Any]], after: Callable[[], None] | None) -> None:
        started = time.perf_counter()
        if entries:
            data = b"".join(_line(e) for e in entries)
            if self._fd is None:
                self._fd = open_for_append(self._path)
            os.write(self._fd, data)  # one write: a kill leaves whole lines or a torn last one
            self.bytes_written += len(data)
        if after is not None:
            after()
        self.seconds_writing += time.perf_counter() - started

    def _index(self, record: TaskRecord, snapshot: dict[str, Any]) -> None:
        saved = TaskRecord.from_json(snapshot)
        saved.size = self.folder.disk_size()
        # Starred or unstarred by another process while this task runs: the index wins.
        record.favorite = self.folder.index_record(saved)

    def _fold(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
        self.bytes_written += self.folder.fold_journal()


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
