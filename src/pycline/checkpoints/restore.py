"""Put the workspace back to a checkpoint without ever touching what the checkpoints do not own.

We do not use `git reset --hard` / `read-tree -u`: when a checkpoint has a file where the
workspace now has a folder, git deletes the folder recursively — including ignored files and any
nested `.git` inside it. Instead the caller stages the current state (so every file we may delete
or overwrite is saved in the object store), and we:

1. diff the checkpoint against that index: `A` = created since (delete), `D` = deleted since
   (write back), `M`/`T` = changed content, mode or type (rewrite);
2. delete the `A` paths ourselves — files and symlinks only, never through a symlinked folder;
3. decide which paths are safe to write: anything whose place is taken by a non-empty folder, an
   untracked (ignored or over-size) file, or which sits under a non-folder, is skipped;
4. `read-tree --reset` (index only; stat data kept for unchanged entries, so the next checkpoint
   stays incremental) and `checkout-index -f -u` for exactly the safe paths;
5. drop skipped paths from the index again so the next checkpoint sees the disk as it is.
"""

from __future__ import annotations

import asyncio
import os
import stat
from collections.abc import Iterable, Sequence
from pathlib import Path

from pycline.checkpoints.diffing import RawChange, parse_raw
from pycline.checkpoints.runner import GitRunner
from pycline.checkpoints.staging import has_git_component, nul_paths
from pycline.checkpoints.types import RestoreResult


class _DirCheck:
    """Answers "is every ancestor of this path a real folder (or absent)?" with a cache."""

    def __init__(self, root: Path) -> None:
        self._root = root
        self._cache: dict[str, bool] = {}

    def ancestors_ok(self, rel: str) -> bool:
        parts = rel.split("/")[:-1]
        for depth in range(1, len(parts) + 1):
            prefix = "/".join(parts[:depth])
            ok = self._cache.get(prefix)
            if ok is None:
                try:
                    mode = os.lstat(self._root / prefix).st_mode
                except FileNotFoundError:
                    # Absent: checkout creates it, and everything below is absent too.
                    self._cache[prefix] = True
                    return True
                ok = stat.S_ISDIR(mode)
                self._cache[prefix] = ok
            if not ok:
                return False
        return True


def delete_paths(root: Path, paths: Iterable[str]) -> tuple[int, list[str]]:
    """Delete tracked files created since the checkpoint; returns (count, failed paths)."""
    check = _DirCheck(root)
    deleted = 0
    failed: list[str] = []
    parents: set[Path] = set()
    for rel in paths:
        if has_git_component(rel) or not check.ancestors_ok(rel):
            failed.append(rel)
            continue
        path = root / rel
        try:
            if stat.S_ISDIR(os.lstat(path).st_mode):
                continue  # a folder took the file's place since staging: not ours to remove
            path.unlink()
        except FileNotFoundError:
            continue
        except OSError:
            failed.append(rel)
            continue
        deleted += 1
        parents.add(path.parent)
    _prune_empty_dirs(root, parents)
    return deleted, failed


def _prune_empty_dirs(root: Path, dirs: Iterable[Path]) -> None:
    # Deepest first so a chain of folders emptied by the deletions goes away completely, as it
    # would with git. rmdir only removes empty folders, so nothing else can be lost.
    for start in sorted(dirs, key=lambda p: len(p.parts), reverse=True):
        current = start
        while current != root and root in current.parents:
            try:
                current.rmdir()
            except OSError:  # not empty (or already gone): its ancestors are not empty either
                break
            current = current.parent


def plan_writes(root: Path, changes: Sequence[RawChange]) -> tuple[list[str], list[str]]:
    """Split the paths to restore into (safe to write, skipped). Run after `delete_paths`."""
    check = _DirCheck(root)
    write: list[str] = []
    skip: list[str] = []
    for change in changes:
        rel = change.path
        if has_git_component(rel) or not check.ancestors_ok(rel):
            skip.append(rel)
            continue
        path = root / rel
        try:
            mode = os.lstat(path).st_mode
        except FileNotFoundError:
            write.append(rel)
            continue
        if stat.S_ISDIR(mode):
            try:
                path.rmdir()  # only when empty: untracked, ignored or `.git` content keeps it
            except OSError:
                skip.append(rel)
                continue
            write.append(rel)
        elif change.status == "D":
            # On disk but not in the freshly staged index: ignored or over the size limit now.
            skip.append(rel)
        else:
            write.append(rel)
    return write, skip


async def restore_index_and_tree(git: GitRunner, root: Path, commit: str) -> RestoreResult:
    """Restore `root` to `commit`; the index must hold a fresh snapshot of the workspace."""
    raw = await git.run("diff-index", "--cached", "-z", "--raw", "--no-renames", commit)
    changes = [c for c in parse_raw(raw.stdout) if not c.involves_gitlink]
    to_delete = [c.path for c in changes if c.status == "A"]
    to_write = [c for c in changes if c.status in ("D", "M", "T")]

    deleted, failed = await asyncio.to_thread(delete_paths, root, to_delete)
    write, skipped = await asyncio.to_thread(plan_writes, root, to_write)
    await git.run("read-tree", "--reset", commit)
    if write:
        await git.run("checkout-index", "-f", "-u", "-z", "--stdin", stdin=nul_paths(write))
    if skipped:
        await git.run("update-index", "-z", "--force-remove", "--stdin", stdin=nul_paths(skipped))
    return RestoreResult(
        written=len(write), deleted=deleted, skipped=tuple(sorted(skipped + failed))
    )
