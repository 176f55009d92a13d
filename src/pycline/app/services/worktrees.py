"""Worktree tasks: a task works in its own git worktree and branch, then is merged, kept or dropped.

The worktree lives under pycline's home (`<home>/worktrees/<repo-key>/<name>`), never inside the
user's tree. Merging never touches the user's working tree unless the target branch is checked
out there and clean, and then only by a fast-forward git itself checks (`merge --ff-only`): the
merge result is computed without a working tree (`git merge-tree --write-tree`), committed with
`commit-tree`, and a branch that is not checked out is moved by a compare-and-swap `update-ref`.
Every function returns data; the front ends render it.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import tempfile
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Literal, assert_never

from pycline.app.services.git_exec import GitError, git, identity_env
from pycline.checkpoints.proclock import process_lock
from pycline.checkpoints.types import CheckpointError
from pycline.storage.atomic import atomic_write_json

BRANCH_PREFIX = "pycline/"
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,62}")
_LOCK_TIMEOUT = 60.0


class WorktreeError(GitError):
    """A worktree task cannot be created or found."""


@dataclass(frozen=True, slots=True)
class WorktreeInfo:
    name: str
    repo: str  # the top level of the user's repository
    path: str  # the worktree folder, under pycline's home
    branch: str  # the task's branch, `pycline/<name>`
    base: str  # the commit the task started from
    target: str | None  # the branch it was started from (merged into); None: detached HEAD
    created: float
    carried: bool  # whether the user's uncommitted changes were carried over


@dataclass(frozen=True, slots=True)
class FileChange:
    path: str
    status: str  # git's letter: A added, M modified, D deleted, R renamed, ...
    added: int | None  # None for binary files
    removed: int | None


@dataclass(frozen=True, slots=True)
class ChangeSummary:
    commits: int  # commits on the task's branch since its base
    files: tuple[FileChange, ...]  # committed and uncommitted, against the base

    @property
    def empty(self) -> bool:
        return not self.files


@dataclass(frozen=True, slots=True)
class Merged:
    how: Literal["fast-forward", "merge-commit", "up-to-date"]
    target: str
    commit: str
    tree_updated: bool  # the target was checked out (clean) and its files were fast-forwarded
    kind: Literal["merged"] = "merged"


@dataclass(frozen=True, slots=True)
class MergeConflict:
    target: str
    files: tuple[str, ...]
    kind: Literal["conflict"] = "conflict"


@dataclass(frozen=True, slots=True)
class MergeRefused:
    reason: str
    kind: Literal["refused"] = "refused"


MergeResult = Merged | MergeConflict | MergeRefused


def valid_name(name: str) -> bool:
    return bool(_NAME.fullmatch(name)) and ".." not in name and not name.endswith(".lock")


async def repo_root(path: Path) -> Path:
    """The top level of the main working tree of the repository containing `path`."""
    try:
        out = await git(path, "rev-parse", "--path-format=absolute", "--git-common-dir")
    except GitError as exc:
        raise WorktreeError(f"{path} is not inside a git repository") from exc
    common = Path(out.stdout.strip())
    # A bare repository has no working tree of its own to merge into.
    if common.name != ".git":
        raise WorktreeError(f"{path}: worktree tasks need a repository with a working tree")
    return common.parent.resolve()


def _repo_dir(home: Path, repo: Path) -> Path:
    digest = hashlib.sha256(str(repo).encode()).hexdigest()[:10]
    safe = re.sub(r"[^A-Za-z0-9._-]", "_", repo.name)[:40] or "repo"
    return home / "worktrees" / f"{safe}-{digest}"


@asynccontextmanager
async def _locked(home: Path, repo: Path) -> AsyncIterator[None]:
    """One pycline process at a time creates, merges or removes worktrees of a repository."""
    try:
        async with process_lock(_repo_dir(home, repo), timeout=_LOCK_TIMEOUT):
            yield
    except CheckpointError as exc:
        raise WorktreeError(f"another pycline process kept {repo} busy: {exc}") from exc


def _meta_path(home: Path, repo: Path, name: str) -> Path:
    return _repo_dir(home, repo) / f"{name}.json"


def _load(path: Path) -> WorktreeInfo | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return WorktreeInfo(**data)
    except (OSError, ValueError, TypeError):
        return None  # a damaged record is skipped, never fatal


async def _unused_name(repo: Path, home: Path) -> str:
    stamp = time.strftime("%Y%m%d-%H%M%S")
    for n in range(1000):
        name = stamp if n == 0 else f"{stamp}-{n}"
        if not _meta_path(home, repo, name).exists() and not await _branch_exists(
            repo, BRANCH_PREFIX + name
        ):
            return name
    raise WorktreeError("no free worktree name")


async def _branch_exists(repo: Path, branch: str) -> bool:
    out = await git(repo, "rev-parse", "--verify", "--quiet", f"refs/heads/{branch}", ok=(0, 1))
    return out.code == 0


async def _working_state_tree(repo: Path) -> str:
    """A tree of the working directory as it is (tracked + untracked, not ignored).

    Built with a private copy of the index, so the user's index and files are left as they are.
    """
    index = (await git(repo, "rev-parse", "--path-format=absolute", "--git-path", "index")).stdout
    with tempfile.TemporaryDirectory(prefix="pycline-index-") as tmp:
        private = Path(tmp) / "index"
        if Path(index.strip()).is_file():
            shutil.copyfile(index.strip(), private)
        env = {"GIT_INDEX_FILE": str(private)}
        await git(repo, "add", "-A", env=env)
        return (await git(repo, "write-tree", env=env)).stdout.strip()


async def create(
    path: Path, home: Path, *, name: str | None = None, carry_changes: bool = False
) -> WorktreeInfo:
    """A new worktree on a new branch from the current commit of the repository at `path`."""
    repo = await repo_root(path)
    if name is not None and not valid_name(name):
        raise WorktreeError(
            f"{name!r} is not a usable worktree name (letters, digits, '.', '_', '-')"
        )
    head = await git(repo, "rev-parse", "--verify", "--quiet", "HEAD^{commit}", ok=(0, 1))
    if head.code != 0:
        raise WorktreeError(f"{repo} has no commit yet; commit once before a worktree task")
    base = head.stdout.strip()
    symbolic = await git(repo, "symbolic-ref", "--quiet", "--short", "HEAD", ok=(0, 1))
    target = symbolic.stdout.strip() if symbolic.code == 0 else None
    async with _locked(home, repo):
        name = name or await _unused_name(repo, home)
        branch = BRANCH_PREFIX + name
        if _meta_path(home, repo, name).exists() or await _branch_exists(repo, branch):
            raise WorktreeError(f"a worktree task or branch named {name!r} already exists")
        folder = _repo_dir(home, repo) / name
        tree = await _working_state_tree(repo) if carry_changes else None
        await git(repo, "worktree", "add", "--quiet", "-b", branch, str(folder), base)
        if tree is not None:
            # Make the worktree's files match the user's, then leave them uncommitted there too.
            await git(folder, "read-tree", "-u", "--reset", tree)
            await git(folder, "reset", "--quiet")
        info = WorktreeInfo(
            name=name,
            repo=str(repo),
            path=str(folder.resolve()),
            branch=branch,
            base=base,
            target=target,
            created=time.time(),
            carried=tree is not None,
        )
        atomic_write_json(_meta_path(home, repo, name), asdict(info))
    return info


async def list_worktrees(path: Path, home: Path) -> list[WorktreeInfo]:
    repo = await repo_root(path)
    folder = _repo_dir(home, repo)
    found = [_load(p) for p in sorted(folder.glob("*.json"))] if folder.is_dir() else []
    return [info for info in found if info is not None]


async def get(path: Path, home: Path, name: str) -> WorktreeInfo:
    if not valid_name(name):
        raise WorktreeError(f"no worktree task named {name!r}")
    repo = await repo_root(path)
    info = _load(_meta_path(home, repo, name))
    if info is None:
        raise WorktreeError(f"no worktree task named {name!r} in {repo}")
    return info


async def commit_work(info: WorktreeInfo, message: str) -> str | None:
    """Commit what the task left uncommitted in its worktree; the new commit, or None."""
    folder = Path(info.path)
    if not folder.is_dir():
        return None
    await git(folder, "add", "-A")
    staged = await git(folder, "diff", "--cached", "--quiet", ok=(0, 1))
    if staged.code == 0:
        return None
    env = await identity_env(folder)
    await git(folder, "commit", "--quiet", "--no-verify", "-m", message, env=env)
    return (await git(folder, "rev-parse", "HEAD")).stdout.strip()


async def _branch_tip(info: WorktreeInfo) -> str:
    out = await git(Path(info.repo), "rev-parse", "--verify", f"refs/heads/{info.branch}")
    return out.stdout.strip()


async def summary(info: WorktreeInfo) -> ChangeSummary:
    """The task's changes against its base: its commits plus what is still uncommitted."""
    folder = Path(info.path)
    tip = await _branch_tip(info)
    commits = int(
        (await git(Path(info.repo), "rev-list", "--count", f"{info.base}..{tip}")).stdout.strip()
    )
    if folder.is_dir():
        # Intent-to-add makes new files show in the diff; only the task's own index changes.
        await git(folder, "add", "--all", "--intent-to-add")
        where, spec = folder, [info.base]
    else:
        where, spec = Path(info.repo), [info.base, tip]
    status = await git(where, "diff", "--name-status", "--no-renames", "-z", *spec)
    numstat = await git(where, "diff", "--numstat", "--no-renames", "-z", *spec)
    counts: dict[str, tuple[int | None, int | None]] = {}
    for entry in numstat.stdout.split("\0"):
        parts = entry.split("\t")
        if len(parts) == 3:
            added, removed, file = parts
            counts[file] = (
                int(added) if added.isdigit() else None,
                int(removed) if removed.isdigit() else None,
            )
    fields = [f for f in status.stdout.split("\0") if f]
    files = [
        FileChange(path, letter, *counts.get(path, (None, None)))
        for letter, path in zip(fields[::2], fields[1::2], strict=False)
    ]
    return ChangeSummary(commits=commits, files=tuple(files))


async def diff(info: WorktreeInfo) -> str:
    """The unified diff of everything the task changed, committed or not."""
    folder = Path(info.path)
    if folder.is_dir():
        await git(folder, "add", "--all", "--intent-to-add")
        return (await git(folder, "diff", "--no-color", info.base)).stdout
    tip = await _branch_tip(info)
    return (await git(Path(info.repo), "diff", "--no-color", info.base, tip)).stdout


async def _checked_out_at(repo: Path, branch: str) -> Path | None:
    listing = await git(repo, "worktree", "list", "--porcelain", "-z")
    current: Path | None = None
    for field in listing.stdout.split("\0"):
        if field.startswith("worktree "):
            current = Path(field.removeprefix("worktree "))
        elif field == f"branch refs/heads/{branch}":
            return current
    return None


async def merge(info: WorktreeInfo, home: Path, *, message: str | None = None) -> MergeResult:
    """Merge the task's branch into the branch it came from, touching no working tree but a
    clean checkout of the target, which is fast-forwarded by git itself."""
    if info.target is None:
        return MergeRefused(
            f"the task started from a detached HEAD, so there is no branch to merge into; "
            f"its work stays on {info.branch}"
        )
    repo = Path(info.repo)
    await commit_work(info, message or f"pycline worktree task {info.name}")
    async with _locked(home, repo):
        if not await _branch_exists(repo, info.target):
            return MergeRefused(f"the branch {info.target} no longer exists")
        tip = await _branch_tip(info)
        old = (await git(repo, "rev-parse", f"refs/heads/{info.target}")).stdout.strip()
        if await _is_ancestor(repo, tip, old):
            return Merged("up-to-date", info.target, old, tree_updated=False)
        how: Literal["fast-forward", "merge-commit"]
        if await _is_ancestor(repo, old, tip):
            new, how = tip, "fast-forward"
        else:
            merged = await git(
                repo,
                "merge-tree",
                "--write-tree",
                "--name-only",
                "--no-messages",
                old,
                tip,
                ok=(0, 1),
            )
            lines = merged.stdout.splitlines()
            if merged.code == 1:
                files = tuple(dict.fromkeys(line for line in lines[1:] if line))
                return MergeConflict(info.target, files)
            text = message or f"Merge pycline worktree task {info.name} into {info.target}"
            env = await identity_env(repo)
            made = await git(
                repo, "commit-tree", lines[0], "-p", old, "-p", tip, "-m", text, env=env
            )
            new, how = made.stdout.strip(), "merge-commit"
        return await _move_target(repo, info, old, new, how)


async def _is_ancestor(repo: Path, older: str, newer: str) -> bool:
    out = await git(repo, "merge-base", "--is-ancestor", older, newer, ok=(0, 1))
    return out.code == 0


async def _move_target(
    repo: Path,
    info: WorktreeInfo,
    old: str,
    new: str,
    how: Literal["fast-forward", "merge-commit"],
) -> MergeResult:
    assert info.target is not None
    checkout = await _checked_out_at(repo, info.target)
    if checkout is None:
        # Compare-and-swap: fails, moving nothing, if someone moved the branch meanwhile.
        moved = await git(
            repo,
            "update-ref",
            "-m",
            f"pycline: merge {info.branch}",
            f"refs/heads/{info.target}",
            new,
            old,
            ok=(0, 1, 128),
        )
        if moved.code != 0:
            return MergeRefused(f"{info.target} moved while merging; try again")
        return Merged(how, info.target, new, tree_updated=False)
    dirty = await git(checkout, "status", "--porcelain", "--untracked-files=no")
    if dirty.stdout.strip():
        return MergeRefused(
            f"{info.target} is checked out at {checkout} with uncommitted changes; nothing was "
            f"merged and {info.branch} is kept (commit or stash, then merge again)"
        )
    ff = await git(checkout, "merge", "--ff-only", "--quiet", new, ok=(0, 1, 128))
    if ff.code != 0:
        reason = ff.stderr.strip().splitlines()[:3]
        return MergeRefused(
            f"git refused to update {checkout}: {' '.join(reason)}; {info.branch} is kept"
        )
    return Merged(how, info.target, new, tree_updated=True)


async def remove(info: WorktreeInfo, home: Path, *, delete_branch: bool) -> None:
    """Remove the worktree folder (and the branch when asked, even unmerged: the user chose)."""
    repo = Path(info.repo)
    async with _locked(home, repo):
        if Path(info.path).is_dir():
            await git(repo, "worktree", "remove", "--force", info.path)
        await git(repo, "worktree", "prune")
        if delete_branch and await _branch_exists(repo, info.branch):
            await git(repo, "branch", "--quiet", "-D", info.branch)
        _meta_path(home, repo, info.name).unlink(missing_ok=True)


FinishChoice = Literal["keep", "merge", "discard"]


@dataclass(frozen=True, slots=True)
class FinishReport:
    info: WorktreeInfo
    choice: FinishChoice
    changes: ChangeSummary
    merge: MergeResult | None  # only for "merge"
    removed: bool  # the worktree folder and branch are gone (merged or discarded)


async def finish(
    info: WorktreeInfo, home: Path, choice: FinishChoice, *, message: str
) -> FinishReport:
    """End a worktree task: commit its work on its branch, then merge, keep or discard it.

    A merge that conflicts or is refused keeps the worktree and the branch, so nothing is lost.
    """
    await commit_work(info, message)
    changes = await summary(info)
    result: MergeResult | None = None
    removed = False
    match choice:
        case "keep":
            pass
        case "merge":
            result = await merge(info, home, message=None)
            if isinstance(result, Merged):
                await remove(info, home, delete_branch=True)
                removed = True
        case "discard":
            await remove(info, home, delete_branch=True)
            removed = True
        case _:
            assert_never(choice)
    return FinishReport(info, choice, changes, result, removed)
