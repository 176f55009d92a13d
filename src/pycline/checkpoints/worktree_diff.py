"""Changes from a checkpoint to the working tree, without staging anything.

`git diff-index <commit>` compares through the index's stat data (unchanged files are not read,
and git stats in parallel) while `ls-files -o` lists the untracked files; both only read, so they
run at the same time. Files git reports as changed on disk are read here, bounded by the
checkpoint size limit. A repository nested since the last checkpoint shows as a bare folder in
`ls-files -o`; the caller then falls back to staging, which knows how to look inside it.
"""

from __future__ import annotations

import asyncio
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from pycline.checkpoints.diffing import RawChange, is_null_oid, parse_raw, read_blobs, text_of
from pycline.checkpoints.runner import GitRunner
from pycline.checkpoints.staging import PLACEHOLDER_NAME
from pycline.checkpoints.types import ChangeStatus, CheckpointError, FileChange


class NeedsStaging(Exception):
    """The working tree holds something only staging can account for (a new nested repo)."""


@dataclass(frozen=True, slots=True)
class _OnDisk:
    content: bytes | None  # None: gone, or over the size limit
    mode: str
    too_large: bool = False


async def diff_to_worktree(
    git: GitRunner, workspace: Path, commit: str, *, max_file_size: int
) -> list[FileChange]:
    tracked, others = await asyncio.gather(
        git.run("diff-index", "-z", "--raw", "--no-renames", f"{commit}^{{commit}}", ok=(0, 128)),
        git.run("ls-files", "-z", "-o", "--exclude-standard"),
    )
    if tracked.returncode != 0:
        raise CheckpointError(f"unknown checkpoint {commit}")
    untracked: list[str] = []
    for raw in others.stdout.split(b"\0"):
        rel = os.fsdecode(raw)
        if not rel or rel.rsplit("/", 1)[-1] == PLACEHOLDER_NAME:
            continue
        if rel.endswith("/"):
            raise NeedsStaging(rel)
        untracked.append(rel)
    changes = [c for c in parse_raw(tracked.stdout) if not c.involves_gitlink]
    need_disk = [c.path for c in changes if c.status != "D" and is_null_oid(c.new_oid)]
    disk = await asyncio.to_thread(_read_all, workspace, [*need_disk, *untracked], max_file_size)
    blobs = await read_blobs(
        git, [oid for c in changes for oid in (c.old_oid, c.new_oid) if not is_null_oid(oid)]
    )
    out = [_tracked_change(c, blobs, disk) for c in changes]
    # A new file over the size limit is never checkpointed, so it is no change either.
    out += [
        _added(rel, disk[rel]) for rel in untracked if disk[rel].mode and not disk[rel].too_large
    ]
    return sorted((c for c in out if c is not None), key=lambda c: c.path)


def _tracked_change(
    c: RawChange, blobs: dict[str, bytes], disk: dict[str, _OnDisk]
) -> FileChange | None:
    before_blob = blobs.get(c.old_oid)
    if c.status == "D":
        before, binary = text_of(before_blob)
        return FileChange(c.path, "deleted", before, None, binary, mode_before=c.old_mode)
    if not is_null_oid(c.new_oid):
        after_blob: bytes | None = blobs.get(c.new_oid)
        too_large, mode = False, c.new_mode
    else:
        seen = disk[c.path]
        if not seen.mode:  # deleted between git's look and ours
            before, binary = text_of(before_blob)
            return FileChange(c.path, "deleted", before, None, binary, mode_before=c.old_mode)
        after_blob, too_large, mode = seen.content, seen.too_large, seen.mode
        if c.status == "M" and after_blob == before_blob and mode == c.old_mode:
            return None  # touched, not changed
    status: ChangeStatus = "added" if c.status == "A" else "modified"
    before, bin_a = text_of(before_blob)
    after, bin_b = text_of(after_blob)
    return FileChange(
        c.path,
        status,
        None if status == "added" else before,
        after,
        bin_a or bin_b or too_large,
        mode_before=None if status == "added" else c.old_mode,
        mode_after=mode,
    )


def _added(rel: str, seen: _OnDisk) -> FileChange:
    after, binary = text_of(seen.content)
    return FileChange(rel, "added", None, after, binary, mode_after=seen.mode)


def _read_all(workspace: Path, paths: list[str], limit: int) -> dict[str, _OnDisk]:
    return {rel: _read(workspace / rel, limit) for rel in paths}


def _read(path: Path, limit: int) -> _OnDisk:
    try:
        st = os.lstat(path)
        if stat.S_ISLNK(st.st_mode):
            return _OnDisk(os.fsencode(os.readlink(path)), "120000")
        if not stat.S_ISREG(st.st_mode):
            return _OnDisk(None, "")
        mode = "100755" if st.st_mode & stat.S_IXUSR else "100644"
        if st.st_size > limit:
            return _OnDisk(None, mode, too_large=True)
        return _OnDisk(path.read_bytes(), mode)
    except OSError:  # vanished or unreadable meanwhile: reported as gone
        return _OnDisk(None, "")
