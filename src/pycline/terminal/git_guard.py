"""After a sandboxed command: nothing in `.git` that git follows elsewhere or runs was changed.

In the sandbox the workspace's `.git` stays writable where a command's own git work needs it
(objects, refs, the index, HEAD, logs: git replaces those by renaming a lock file in `.git`
itself, so the folder cannot be read-only). What git follows to other places or runs is
read-only there (`sandbox._git_mounts`), but a name that does not exist yet cannot be mounted
over: a command could write `.git/commondir` (git then takes its config and hooks from a folder
the command filled) or `.git/gitdir`, and the user's own next `git status`, outside the sandbox,
would run what the command planted. So pycline looks before and after each command: such a
file that appeared is removed, and anything of the read-only parts that changed is reported.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

# Files and folders of a git directory that git follows to another place or that run programs.
FOLLOWED = (
    "commondir",
    "gitdir",
    "config",
    "config.worktree",
    "hooks",
    "info",
    "modules",
    "objects/info/alternates",
    "objects/info/http-alternates",
    "remotes",
    "branches",
)
_PER_WORKTREE = ("commondir", "gitdir", "config.worktree")
_NEVER_IN_A_REPOSITORY = frozenset({"commondir", "gitdir"})
_MAX_ENTRIES = 2_000

Fingerprint = tuple[tuple[str, int, int, int], ...]


@dataclass(frozen=True, slots=True)
class GitLook:
    """What the followed parts of one git directory were at one moment."""

    git_dir: Path
    parts: dict[str, Fingerprint]


def look(workspace: Path) -> GitLook | None:
    """The workspace's `.git` folder as it is now (None: it has no `.git` folder)."""
    git_dir = workspace / ".git"
    if git_dir.is_symlink() or not git_dir.is_dir():
        return None
    names = list(FOLLOWED)
    worktrees = git_dir / "worktrees"
    with contextlib.suppress(OSError):
        for entry in sorted(worktrees.iterdir())[:200]:
            names += [f"worktrees/{entry.name}/{part}" for part in _PER_WORKTREE]
    return GitLook(git_dir, {name: _fingerprint(git_dir / name) for name in names})


def mended(before: GitLook, first: GitLook | None = None) -> list[str]:
    """Compare the git directory with `before` (and with `first`, the first look of this
    workspace, for what appeared while a background command ran): what appeared is removed;
    one line per finding, for the user and the model (empty: nothing changed)."""
    now = look(before.git_dir.parent)
    if now is None:
        return []
    found: list[str] = []
    for name, was in before.parts.items():
        is_now = now.parts.get(name, ())
        # A repository's own git directory never has these: one that appeared since the first
        # look was planted (by a command still running in the background, too).
        if name in _NEVER_IN_A_REPOSITORY and first is not None:
            absent = not first.parts.get(name, ())
        else:
            absent = not was
        if absent and is_now:
            _remove(before.git_dir / name)
            found.append(f".git/{name} was written by a command and has been removed")
        elif was and is_now != was:
            found.append(f".git/{name} changed while the command ran; check it before using git")
    return found


_first_looks: dict[Path, GitLook] = {}


def first_look(now: GitLook) -> GitLook:
    """The first look this process took at that git directory (`now`, if this is it)."""
    return _first_looks.setdefault(now.git_dir, now)


def _remove(path: Path) -> None:
    with contextlib.suppress(OSError):
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink()


def _fingerprint(path: Path) -> Fingerprint:
    """Names, sizes, modes and times of `path` and what it holds (empty: it does not exist)."""
    out: list[tuple[str, int, int, int]] = []
    stack = [(path, "")]
    while stack and len(out) < _MAX_ENTRIES:
        here, rel = stack.pop()
        try:
            st = os.lstat(here)
        except OSError:
            continue
        out.append((rel, st.st_size, st.st_mode, st.st_mtime_ns))
        if os.path.isdir(here) and not os.path.islink(here):
            with contextlib.suppress(OSError):
                stack += [(here / name, f"{rel}/{name}") for name in sorted(os.listdir(here))]
    return tuple(out)
