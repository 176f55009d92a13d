"""The batch file formats: task lines in, result lines out (JSON Lines, one object per line)."""

from __future__ import annotations

import json
import os
import re
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from pycline.errors import ConfigError

Isolation = Literal["worktree", "copy"]
Status = Literal[
    "success", "failure", "incomplete", "unverified", "timeout", "over_budget", "error"
]
# A URL git can clone; anything else in `repo` is a local path.
_URL = re.compile(r"^(https?|ssh|git|file)://|^[\w.-]+@[\w.-]+:")
_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")


class BatchTask(BaseModel):
    """One input line. `repo` (a path or git URL) is worked on in an isolated copy; `workspace`
    is a folder the task runs in as it is (the caller prepared one per task)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    task: str
    repo: str | None = None
    workspace: str | None = None
    setup: str | None = None  # shell command run in the copy before the task
    check: str | None = None  # shell command run after it; exit status 0 means success
    script: str | None = None  # replies for the scripted provider (tests, oracles)
    # A goal the agent is held to while it works (`pycline run --verify`): only its exit 0
    # completes the task; `max_verify` failed checks end it unverified.
    verify: str | None = None
    max_verify: int | None = Field(None, ge=1)

    @model_validator(mode="after")
    def _one_source(self) -> BatchTask:
        if (self.repo is None) == (self.workspace is None):
            raise ValueError("give exactly one of `repo` and `workspace`")
        if not _ID.fullmatch(self.id):
            raise ValueError("`id` must be 1-128 letters, digits, '.', '_' or '-'")
        return self

    @property
    def repo_is_url(self) -> bool:
        return self.repo is not None and bool(_URL.match(self.repo))

    def resolved(self, base: Path) -> BatchTask:
        """Relative paths (repo, workspace, script) taken from the tasks file's folder."""

        def absolute(value: str | None) -> str | None:
            if value is None:
                return None
            return str((base / Path(value).expanduser()).resolve())

        return self.model_copy(
            update={
                "repo": self.repo if self.repo_is_url else absolute(self.repo),
                "workspace": absolute(self.workspace),
                "script": absolute(self.script),
            }
        )


@dataclass(frozen=True, slots=True)
class CheckResult:
    exit_code: int | None  # None: it timed out
    passed: bool
    output: str  # the tail of its output
    duration: float


@dataclass(frozen=True, slots=True)
class BatchResult:
    id: str
    status: Status
    completed: bool  # the agent declared the task done
    check: CheckResult | None
    cost: float
    tokens_in: int
    tokens_out: int
    requests: int
    duration: float
    patch: str
    transcript: str | None  # the saved task's folder
    error: str | None = None

    @classmethod
    def failed(cls, task_id: str, error: str, duration: float = 0.0) -> BatchResult:
        """A task that could not run to an outcome: nothing done, nothing spent."""
        return cls(
            id=task_id,
            status="error",
            completed=False,
            check=None,
            cost=0.0,
            tokens_in=0,
            tokens_out=0,
            requests=0,
            duration=duration,
            patch="",
            transcript=None,
            error=error,
        )

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def load_tasks(path: Path) -> list[BatchTask]:
    """Every task of a JSONL file, paths resolved; ConfigError naming the first bad line."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc}") from exc
    tasks: list[BatchTask] = []
    seen: set[str] = set()
    for number, line in enumerate(lines, 1):
        if not line.strip() or line.lstrip().startswith("//"):
            continue
        try:
            task = BatchTask.model_validate(json.loads(line))
        except (ValueError, ValidationError) as exc:
            raise ConfigError(f"{path}:{number}: {exc}") from exc
        if task.id in seen:
            raise ConfigError(f"{path}:{number}: the id {task.id!r} is used twice")
        seen.add(task.id)
        tasks.append(task.resolved(path.parent))
    return tasks


def finished_ids(out: Path) -> set[str]:
    """Ids that already have a result line (a torn last line from a kill is ignored)."""
    if not out.is_file():
        return set()
    done: set[str] = set()
    for line in out.read_text(encoding="utf-8").splitlines():
        try:
            data = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(data, dict) and isinstance(data.get("id"), str):
            done.add(data["id"])
    return done


def append_result(out: Path, result: BatchResult) -> None:
    """One whole line per write, flushed to disk, so a kill loses at most the task in flight."""
    line = json.dumps(result.to_json(), ensure_ascii=False) + "\n"
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("a", encoding="utf-8") as fh:
        # A line torn by an earlier kill would swallow this one; start on a fresh line.
        if fh.tell() > 0 and not _ends_with_newline(out):
            fh.write("\n")
        fh.write(line)
        fh.flush()
        os.fsync(fh.fileno())


def _ends_with_newline(path: Path) -> bool:
    with path.open("rb") as fh:
        fh.seek(-1, os.SEEK_END)
        return fh.read(1) == b"\n"
