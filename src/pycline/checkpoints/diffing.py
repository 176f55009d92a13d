"""Parse git's raw diff output and turn it into `FileChange`s with file contents."""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from pycline.checkpoints.runner import GitRunner
from pycline.checkpoints.types import ChangeStatus, CheckpointError, FileChange

GITLINK_MODE = "160000"
_NULL_OID_CHARS = frozenset("0")
# The same heuristic git uses: a NUL byte early in the file means binary.
_BINARY_SNIFF = 8000


@dataclass(frozen=True, slots=True)
class RawChange:
    """One record of `git diff-* --raw -z`: side a (old) and side b (new)."""

    old_mode: str
    new_mode: str
    old_oid: str
    new_oid: str
    status: str  # A, D, M or T (renames are off)
    path: str

    @property
    def involves_gitlink(self) -> bool:
        return GITLINK_MODE in (self.old_mode, self.new_mode)


def parse_raw(data: bytes) -> list[RawChange]:
    parts = data.split(b"\0")
    changes: list[RawChange] = []
    i = 0
    while i + 1 < len(parts):
        meta = parts[i]
        if not meta.startswith(b":"):
            raise CheckpointError(f"unexpected git diff output: {meta[:80]!r}")
        old_mode, new_mode, old_oid, new_oid, status = meta[1:].decode("ascii").split(" ")
        changes.append(
            RawChange(old_mode, new_mode, old_oid, new_oid, status[:1], os.fsdecode(parts[i + 1]))
        )
        i += 2
    return changes


def is_null_oid(oid: str) -> bool:
    return set(oid) <= _NULL_OID_CHARS


async def read_blobs(git: GitRunner, oids: Iterable[str]) -> dict[str, bytes]:
    wanted = sorted({oid for oid in oids if not is_null_oid(oid)})
    if not wanted:
        return {}
    result = await git.run("cat-file", "--batch", stdin="".join(f"{o}\n" for o in wanted).encode())
    return parse_batch(result.stdout)


def parse_batch(data: bytes) -> dict[str, bytes]:
    """Parse `cat-file --batch` output: `<oid> <type> <size>\\n<content>\\n` per object."""
    blobs: dict[str, bytes] = {}
    pos = 0
    while pos < len(data):
        end = data.index(b"\n", pos)
        header = data[pos:end].decode("ascii").split(" ")
        pos = end + 1
        if len(header) != 3:  # `<oid> missing`
            raise CheckpointError(f"object {header[0]} is missing from the checkpoint store")
        size = int(header[2])
        blobs[header[0]] = data[pos : pos + size]
        pos += size + 1
    return blobs


def text_of(blob: bytes | None) -> tuple[str | None, bool]:
    if blob is None:
        return None, False
    if b"\0" in blob[:_BINARY_SNIFF]:
        return None, True
    return blob.decode("utf-8", errors="replace"), False


_STATUS: dict[str, ChangeStatus] = {"A": "added", "D": "deleted", "M": "modified", "T": "modified"}


async def file_changes(git: GitRunner, raw: Sequence[RawChange]) -> list[FileChange]:
    changes = [c for c in raw if not c.involves_gitlink and c.status in _STATUS]
    blobs = await read_blobs(git, [oid for c in changes for oid in (c.old_oid, c.new_oid)])
    out: list[FileChange] = []
    for c in changes:
        before, bin_a = text_of(blobs.get(c.old_oid))
        after, bin_b = text_of(blobs.get(c.new_oid))
        status = _STATUS[c.status]
        out.append(
            FileChange(
                path=c.path,
                status=status,
                before=before,
                after=after,
                binary=bin_a or bin_b,
                mode_before=None if status == "added" else c.old_mode,
                mode_after=None if status == "deleted" else c.new_mode,
            )
        )
    return out
