"""Real-git helpers for the checkpoint tests: build user repositories, fingerprint folders."""

from __future__ import annotations

import hashlib
import os
import stat
import subprocess
from pathlib import Path

from pycline.checkpoints import ShadowGit

_USER_GIT_ENV = {
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_AUTHOR_NAME": "User",
    "GIT_AUTHOR_EMAIL": "user@example.com",
    "GIT_COMMITTER_NAME": "User",
    "GIT_COMMITTER_EMAIL": "user@example.com",
}


def user_git(cwd: Path, *args: str) -> str:
    """Run git as the *user* would in their own repository (not the shadow one)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(_USER_GIT_ENV)
    done = subprocess.run(
        ["git", "-c", "protocol.file.allow=always", *args],
        cwd=cwd,
        env=env,
        check=True,
        capture_output=True,
    )
    return done.stdout.decode()


def make_repo(path: Path, files: dict[str, str]) -> None:
    path.mkdir(parents=True, exist_ok=True)
    user_git(path, "init", "-q")
    for rel, text in files.items():
        write(path / rel, text)
    user_git(path, "add", "-A")
    user_git(path, "commit", "-q", "-m", "initial")


def write(path: Path, text: str | bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_bytes(text.encode("utf-8"))


def worktree_state(root: Path, *, skip: tuple[str, ...] = ()) -> dict[str, tuple[str, int, bytes]]:
    """Every file, symlink and folder outside any `.git`: kind, permission bits, content."""
    state: dict[str, tuple[str, int, bytes]] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d != ".git"]
        for name in dirnames + filenames:
            if name == ".git":
                continue
            full = Path(dirpath) / name
            rel = full.relative_to(root).as_posix()
            if rel.startswith(skip):
                continue
            st = os.lstat(full)
            if stat.S_ISLNK(st.st_mode):
                state[rel] = ("link", 0, os.readlink(full).encode())
            elif stat.S_ISDIR(st.st_mode):
                state[rel] = ("dir", 0, b"")
            else:
                state[rel] = ("file", stat.S_IMODE(st.st_mode), full.read_bytes())
    return state


def git_dirs_fingerprint(root: Path) -> dict[str, tuple[str, int, int, str]]:
    """Every entry of every `.git` (folder or gitfile) under `root`, with content hash and mtime.

    Any write, rename, lock file or touched timestamp inside a user repository changes this.
    """
    prints: dict[str, tuple[str, int, int, str]] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            full = Path(dirpath) / name
            rel = full.relative_to(root).as_posix()
            if ".git" not in rel.split("/"):
                continue
            st = os.lstat(full)
            if stat.S_ISDIR(st.st_mode):
                prints[rel] = ("dir", st.st_mode, st.st_mtime_ns, "")
            else:
                digest = hashlib.sha256(full.read_bytes()).hexdigest()
                prints[rel] = ("file", st.st_mode, st.st_mtime_ns, digest)
    return prints


def shadow_tree(sg: ShadowGit, commit: str) -> list[tuple[str, str]]:
    """(mode, path) of every entry of a checkpoint, read with plain git."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env["GIT_DIR"] = str(sg.git_dir)
    out = subprocess.run(
        ["git", "ls-tree", "-r", "-z", commit], env=env, capture_output=True, check=True
    ).stdout.decode()
    entries = []
    for record in filter(None, out.split("\0")):
        meta, path = record.split("\t", 1)
        entries.append((meta.split(" ")[0], path))
    return entries
