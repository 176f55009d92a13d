"""The user's repositories are never written to, and nested ones are checkpointed as plain files."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pycline.checkpoints import ShadowGit

from .helpers import (
    git_dirs_fingerprint,
    make_repo,
    shadow_tree,
    user_git,
    worktree_state,
    write,
)


def _build_user_repos(workspace: Path, tmp_path: Path) -> None:
    """The workspace is a repo with a nested clone, a submodule and a linked worktree inside."""
    make_repo(workspace, {"README.md": "top\n", "src/main.py": "print('top')\n"})
    make_repo(workspace / "vendor/lib", {"lib.py": "VERSION = 1\n", ".gitignore": "*.tmp\n"})
    upstream = tmp_path / "upstream"
    make_repo(upstream, {"sub.txt": "submodule file\n"})
    user_git(workspace, "submodule", "add", "-q", str(upstream), "modules/sub")
    user_git(workspace, "commit", "-q", "-m", "add submodule")
    user_git(workspace, "worktree", "add", "-q", "wt", "-b", "side")
    # Unstaged changes and an uncommitted file: the user's index must keep exactly these states.
    write(workspace / "README.md", "top, edited by the user\n")
    write(workspace / "vendor/lib/lib.py", "VERSION = 2\n")
    write(workspace / "vendor/lib/scratch.tmp", "ignored by the nested repo\n")


async def test_user_and_nested_git_folders_are_byte_identical_after_every_operation(
    workspace: Path, isolated_home: Path, tmp_path: Path
) -> None:
    _build_user_repos(workspace, tmp_path)
    before = git_dirs_fingerprint(workspace)
    assert (workspace / "modules/sub/.git").is_file()  # gitfile into .git/modules
    assert (workspace / "wt/.git").is_file()  # gitfile into .git/worktrees
    sg = ShadowGit(workspace, isolated_home)

    await sg.init()
    first = await sg.commit("1")
    write(workspace / "vendor/lib/lib.py", "VERSION = 3\n")
    write(workspace / "modules/sub/sub.txt", "edited\n")
    write(workspace / "wt/src/main.py", "print('worktree')\n")
    second = await sg.commit("2")
    await sg.diff(first, second)
    await sg.diff(first)
    await sg.restore(first)
    await sg.list()
    await sg.gc()

    after = git_dirs_fingerprint(workspace)
    assert after == before
    assert not any(p.endswith(".lock") for p in after)
    assert not list(workspace.rglob(".git_disabled*"))
    # The user's repository still sees its own edits exactly as before.
    status = user_git(workspace, "status", "--porcelain", "--ignore-submodules=none")
    assert " M README.md" in status


async def test_nested_repositories_are_checkpointed_as_ordinary_files_not_gitlinks(
    workspace: Path, isolated_home: Path, tmp_path: Path
) -> None:
    _build_user_repos(workspace, tmp_path)
    sg = ShadowGit(workspace, isolated_home)

    first = await sg.commit("1")

    entries = shadow_tree(sg, first)
    paths = {p for _, p in entries}
    assert all(mode != "160000" for mode, _ in entries)
    assert {"vendor/lib/lib.py", "modules/sub/sub.txt", "wt/src/main.py"} <= paths
    assert "vendor/lib/scratch.tmp" not in paths  # the nested repo's .gitignore applies
    assert not any(".git" in p.split("/") for p in paths)
    assert ".gitmodules" in paths


async def test_edits_inside_a_nested_repository_are_restored(
    workspace: Path, isolated_home: Path
) -> None:
    make_repo(workspace / "inner", {"a.py": "v1\n", "pkg/b.py": "b1\n"})
    sg = ShadowGit(workspace, isolated_home)
    first = await sg.commit("1")
    expected = worktree_state(workspace)
    before = git_dirs_fingerprint(workspace)
    write(workspace / "inner/a.py", "v2\n")
    (workspace / "inner/pkg/b.py").unlink()
    write(workspace / "inner/new.py", "new\n")
    await sg.commit("2")

    await sg.restore(first)

    assert worktree_state(workspace) == expected
    assert git_dirs_fingerprint(workspace) == before


async def test_repositories_created_between_checkpoints_are_picked_up(
    workspace: Path, isolated_home: Path
) -> None:
    write(workspace / "top.txt", "top\n")
    sg = ShadowGit(workspace, isolated_home)
    first = await sg.commit("1")
    # A clone with history, and a fresh `git init` with no commit (git cannot even gitlink it),
    # one of them nested inside the other.
    make_repo(workspace / "clone", {"c.txt": "clone\n"})
    (workspace / "clone/fresh").mkdir()
    user_git(workspace / "clone/fresh", "init", "-q")
    write(workspace / "clone/fresh/f.txt", "fresh\n")
    (workspace / "empty").mkdir()
    user_git(workspace / "empty", "init", "-q")
    before = git_dirs_fingerprint(workspace)

    second = await sg.commit("2")

    paths = {p for _, p in shadow_tree(sg, second)}
    assert {"top.txt", "clone/c.txt", "clone/fresh/f.txt"} <= paths
    assert all(mode != "160000" for mode, _ in shadow_tree(sg, second))
    await sg.restore(first)
    # Their files go (created since), their .git folders stay untouched.
    assert not (workspace / "clone/c.txt").exists()
    assert not (workspace / "clone/fresh/f.txt").exists()
    assert git_dirs_fingerprint(workspace) == before


async def test_works_with_no_git_identity_and_hostile_git_environment(
    workspace: Path, isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_repo(workspace, {"a.txt": "a\n"})
    fingerprint = git_dirs_fingerprint(workspace)
    empty_home = tmp_path / "empty-home"
    empty_home.mkdir()
    monkeypatch.setenv("HOME", str(empty_home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(empty_home / ".config"))
    for var in ("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "EMAIL"):
        monkeypatch.delenv(var, raising=False)
    # Inherited variables that would aim git at the user's repository if we passed them on.
    monkeypatch.setenv("GIT_DIR", str(workspace / ".git"))
    monkeypatch.setenv("GIT_INDEX_FILE", str(workspace / ".git/index"))
    monkeypatch.setenv("GIT_WORK_TREE", str(tmp_path))
    sg = ShadowGit(workspace, isolated_home)

    first = await sg.commit("no identity anywhere")
    write(workspace / "a.txt", "changed\n")
    await sg.restore(first)

    assert (workspace / "a.txt").read_text() == "a\n"
    assert git_dirs_fingerprint(workspace) == fingerprint
    assert sorted(os.listdir(empty_home)) == []
    assert not (workspace / ".git").joinpath("checkpoints").exists()


async def test_shadow_repository_lives_outside_the_workspace(
    workspace: Path, isolated_home: Path
) -> None:
    write(workspace / "a.txt", "a\n")
    sg = ShadowGit(workspace, isolated_home)
    await sg.commit("1")

    assert sg.git_dir.is_relative_to(isolated_home / "checkpoints")
    assert (sg.git_dir / "HEAD").is_file()
    assert worktree_state(workspace) == {"a.txt": ("file", 0o644, b"a\n")}


async def test_a_file_that_became_a_folder_is_checkpointed_with_its_contents(
    workspace: Path, isolated_home: Path
) -> None:
    write(workspace / "notes", "a file at first\n")
    sg = ShadowGit(workspace, isolated_home)
    await sg.commit("1")
    (workspace / "notes").unlink()
    write(workspace / "notes/today.txt", "now a folder\n")

    commit = await sg.commit("2")

    assert [path for _, path in shadow_tree(sg, commit)] == ["notes/today.txt"]
