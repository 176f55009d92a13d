"""The values the checkpoint tracker hands out, its error, and the protocol the core depends on."""

from __future__ import annotations

import builtins
import difflib
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Literal, Protocol

from pycline.errors import PyclineError

ChangeStatus = Literal["added", "modified", "deleted"]


class CheckpointError(PyclineError):
    """A checkpoint operation failed (git missing or timed out, unknown checkpoint, …).

    The workspace is left as it was whenever the failure happens before anything is written.
    """


@dataclass(frozen=True, slots=True)
class Checkpoint:
    commit: str
    message: str
    created_at: datetime
    seq: int  # position in the workspace's checkpoint list; stable across prune


@dataclass(frozen=True, slots=True)
class FileChange:
    """One file that differs between two checkpoints (or a checkpoint and the working tree).

    `before`/`after` are None when the side does not exist or the content is binary.
    """

    path: str
    status: ChangeStatus
    before: str | None
    after: str | None
    binary: bool = False
    mode_before: str | None = None  # git modes: "100644", "100755", "120000" (symlink)
    mode_after: str | None = None

    @property
    def unified_diff(self) -> str:
        if self.binary:
            return f"Binary file {self.path} {self.status}\n"
        a = (self.before or "").splitlines(keepends=True)
        b = (self.after or "").splitlines(keepends=True)
        old = f"a/{self.path}" if self.status != "added" else "/dev/null"
        new = f"b/{self.path}" if self.status != "deleted" else "/dev/null"
        return "".join(difflib.unified_diff(a, b, old, new))


@dataclass(frozen=True, slots=True)
class RestoreResult:
    written: int
    deleted: int
    # Paths of the checkpoint left alone because restoring them would have overwritten an ignored
    # or excluded file, or removed a folder holding one (or a nested `.git`).
    skipped: tuple[str, ...] = ()


class Checkpointer(Protocol):
    """What `Task` needs from a checkpoint tracker; `ShadowGit` is the implementation."""

    async def init(self) -> None: ...

    async def commit(self, message: str) -> str: ...

    async def restore(self, commit: str) -> RestoreResult: ...

    async def diff(
        self, from_commit: str, to_commit: str | None = None
    ) -> builtins.list[FileChange]: ...

    async def list(self) -> Sequence[Checkpoint]: ...
