"""The record of a background task, written atomically by its process and read by the board."""

from __future__ import annotations

import contextlib
import json
import os
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path
from typing import Any, Literal

from pycline.app.background.paths import secret_file, socket_path, state_dir, valid_id
from pycline.errors import PyclineError
from pycline.storage.atomic import atomic_write_json

BgStatus = Literal["starting", "running", "waiting", "completed", "failed", "cancelled"]
# Who runs the task: a `run --bg` worker, or a task of the user's terminal, web UI or editor.
FrontEnd = Literal["background", "terminal", "web", "editor"]
FINISHED: tuple[BgStatus, ...] = ("completed", "failed", "cancelled")


@dataclass(frozen=True, slots=True)
class BgState:
    id: str
    task: str
    workspace: str
    pid: int
    status: BgStatus
    started: float
    cost: float = 0.0
    ended: float | None = None
    task_id: str | None = None  # the saved task (`pycline show ID`) once it exists
    question: dict[str, Any] | None = None  # what it waits for, as sent to attached clients
    reason: str = ""  # why it ended, when it did not complete
    log: str = ""  # the process's output file, for when it dies unexpectedly
    front_end: FrontEnd = "background"
    pid_start: int | None = None  # when its process started: a reused pid is not it

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @staticmethod
    def from_json(data: dict[str, Any]) -> BgState:
        names = {f.name for f in fields(BgState)}
        return BgState(**{k: v for k, v in data.items() if k in names})

    def updated(self, **changes: Any) -> BgState:
        return replace(self, **changes)


def state_file(home: Path, bg_id: str) -> Path:
    return state_dir(home) / f"{bg_id}.json"


def save(home: Path, state: BgState) -> None:
    atomic_write_json(state_file(home, state.id), state.to_json(), mode=0o600)


def load(home: Path, bg_id: str) -> BgState | None:
    if not valid_id(bg_id):
        return None
    try:
        return BgState.from_json(json.loads(state_file(home, bg_id).read_text(encoding="utf-8")))
    except (OSError, ValueError, TypeError):
        return None


def forget(home: Path, bg_id: str) -> None:
    """Remove a task's record, secret and socket (a live task's, once it ended or its process
    died); what cannot be removed is left for the next listing."""
    if not valid_id(bg_id):
        return
    with contextlib.suppress(OSError, PyclineError):
        state_file(home, bg_id).unlink(missing_ok=True)
        secret_file(home, bg_id).unlink(missing_ok=True)
        socket_path(bg_id).unlink(missing_ok=True)


def load_all(home: Path) -> list[BgState]:
    folder = state_dir(home)
    if not folder.is_dir():
        return []
    found = (load(home, p.stem) for p in folder.glob("*.json"))
    return sorted((s for s in found if s is not None), key=lambda s: s.started)


def process_start(pid: int) -> int | None:
    """When process `pid` started (clock ticks since boot); None where the system cannot tell."""
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[19])
    except (OSError, IndexError, ValueError):
        return None


def still_running(state: BgState) -> bool:
    """Whether the process that wrote `state` still runs (not another one given its pid)."""
    if not process_alive(state.pid):
        return False
    return state.pid_start is None or process_start(state.pid) in (None, state.pid_start)


def process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A zombie (exited, not yet reaped) is not running.
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        return stat.rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return True
