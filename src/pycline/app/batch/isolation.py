"""A private place for each batch task to work in, and the patch of what it changed there.

`copy` copies the folder (uncommitted changes and `.git` included) or clones a URL; `worktree`
adds a detached git worktree of the repository's current commit (cheap, committed content only).
The patch is taken between two trees written with a private index, so it covers new files and
never changes the workspace's own index or history.
"""

from __future__ import annotations

import hashlib
import shutil
import tempfile
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from pathlib import Path

from pycline.app.batch.model import BatchTask, Isolation
from pycline.app.services.git_exec import GitError, git
from pycline.checkpoints.proclock import process_lock
from pycline.checkpoints.types import CheckpointError

_LOCK_TIMEOUT = 120.0


@dataclass(frozen=True, slots=True)
class Place:
    path: Path  # where the task runs
    owned: Path  # ours, removed at the end: the copy, or (for a `workspace`) scratch space
    worktree_of: Path | None  # the top level of the repository the worktree belongs to


async def prepare(task: BatchTask, isolation: Isolation, scratch: Path) -> Place:
    """The folder the task runs in: its workspace as given, or a fresh isolated copy."""
    scratch.mkdir(parents=True, exist_ok=True)
    owned = Path(tempfile.mkdtemp(prefix=f"{task.id}-", dir=scratch))
    if task.workspace is not None:
        # Only the patch's git dir goes in `owned`; the folder itself is the caller's.
        return Place(Path(task.workspace), owned, None)
    assert task.repo is not None  # BatchTask guarantees one of the two
    target = owned / "ws"
    if task.repo_is_url:
        if isolation == "worktree":
            source = await _cached_clone(task.repo, scratch)
            return Place(target, owned, await _add_worktree(source, target))
        await git(owned, "clone", "--quiet", "--", task.repo, str(target))
        return Place(target, owned, None)
    source = Path(task.repo)
    if not source.is_dir():
        raise FileNotFoundError(f"the repo folder {source} does not exist")
    if isolation == "worktree":
        return Place(target, owned, await _add_worktree(source, target))
    shutil.copytree(source, target, symlinks=True)
    return Place(target, owned, None)


async def _cached_clone(url: str, scratch: Path) -> Path:
    """One clone per URL per batch; worktrees of it are cheap."""
    folder = scratch / "repos" / hashlib.sha256(url.encode()).hexdigest()[:16]
    async with _lock(scratch, folder):
        if not (folder / ".git").is_dir():
            await git(scratch, "clone", "--quiet", "--", url, str(folder))
    return folder


async def _add_worktree(repo: Path, target: Path) -> Path:
    """Add a detached worktree; git's own locks make concurrent `worktree add`s fail, not wait."""
    top = Path((await git(repo, "rev-parse", "--show-toplevel")).stdout.strip())
    async with _lock(target.parent.parent, top):
        await git(top, "worktree", "add", "--quiet", "--detach", str(target), "HEAD")
    return top


def _lock(scratch: Path, key: Path) -> AbstractAsyncContextManager[None]:
    name = hashlib.sha256(str(key).encode()).hexdigest()[:16]
    return process_lock(scratch / "locks" / name, timeout=_LOCK_TIMEOUT)


async def _git_env(place: Place) -> dict[str, str]:
    """The folder's own repository, or (for a folder without one) a git dir beside the copy, so
    nothing is added to a folder that is not ours."""
    if (place.path / ".git").exists():
        return {}
    git_dir = place.owned / "patch.git"
    if not git_dir.exists():
        await git(place.owned, "init", "--quiet", "--bare", str(git_dir))
    return {"GIT_DIR": str(git_dir), "GIT_WORK_TREE": str(place.path)}


async def snapshot(place: Place) -> str:
    """A tree of the folder as it is now, written with a private index."""
    env = await _git_env(place)
    with tempfile.TemporaryDirectory(prefix="pycline-batch-index-") as tmp:
        env["GIT_INDEX_FILE"] = str(Path(tmp) / "index")
        await git(place.path, "add", "-A", env=env)
        return (await git(place.path, "write-tree", env=env)).stdout.strip()


async def patch(place: Place, base_tree: str) -> str:
    """The binary-safe unified diff from `base_tree` to the folder as it is now."""
    now = await snapshot(place)
    diff = ["diff", "--binary", "--no-color", "--no-renames", base_tree, now]
    return (await git(place.path, *diff, env=await _git_env(place))).stdout


async def release(place: Place) -> None:
    """Remove the isolated copy (a worktree is unregistered from its repository first)."""
    if place.worktree_of is not None:
        try:
            async with _lock(place.owned.parent, place.worktree_of):
                await git(place.worktree_of, "worktree", "remove", "--force", str(place.path))
        except (GitError, CheckpointError):
            pass  # the folder goes below; `git worktree prune` forgets it later
    shutil.rmtree(place.owned, ignore_errors=True)
