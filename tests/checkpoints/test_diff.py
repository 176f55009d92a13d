"""Comparing checkpoints with each other and with the working tree."""

from __future__ import annotations

from pathlib import Path

import pytest

from pycline.checkpoints import CheckpointError, FileChange, ShadowGit

from .helpers import make_repo, write


def _by_path(changes: list[FileChange]) -> dict[str, FileChange]:
    return {c.path: c for c in changes}


async def test_diff_between_two_checkpoints_lists_added_modified_and_deleted_files(
    workspace: Path, isolated_home: Path
) -> None:
    write(workspace / "keep.txt", "same\n")
    write(workspace / "edit.txt", "line 1\nline 2\n")
    write(workspace / "gone.txt", "bye\n")
    write(workspace / "tool.sh", "#!/bin/sh\n")
    sg = ShadowGit(workspace, isolated_home)
    first = await sg.commit("1")
    write(workspace / "edit.txt", "line 1\nline two\n")
    (workspace / "gone.txt").unlink()
    write(workspace / "dir/new.txt", "hello\n")
    (workspace / "tool.sh").chmod(0o755)
    second = await sg.commit("2")

    changes = _by_path(await sg.diff(first, second))

    assert sorted(changes) == ["dir/new.txt", "edit.txt", "gone.txt", "tool.sh"]
    assert changes["dir/new.txt"] == FileChange(
        "dir/new.txt", "added", None, "hello\n", mode_after="100644"
    )
    assert changes["gone.txt"].status == "deleted"
    assert changes["gone.txt"].before == "bye\n"
    assert changes["gone.txt"].after is None
    edit = changes["edit.txt"]
    assert (edit.status, edit.before, edit.after) == (
        "modified",
        "line 1\nline 2\n",
        "line 1\nline two\n",
    )
    assert "-line 2\n+line two\n" in edit.unified_diff
    assert edit.unified_diff.startswith("--- a/edit.txt\n+++ b/edit.txt\n")
    tool = changes["tool.sh"]
    assert (tool.mode_before, tool.mode_after, tool.before == tool.after) == (
        "100644",
        "100755",
        True,
    )


async def test_diff_to_the_working_tree_includes_uncommitted_and_new_files(
    workspace: Path, isolated_home: Path
) -> None:
    write(workspace / "a.txt", "a\n")
    sg = ShadowGit(workspace, isolated_home)
    first = await sg.commit("1")
    write(workspace / "a.txt", "a, edited\n")
    write(workspace / "b.txt", "b\n")
    write(workspace / "node_modules/x/index.js", "excluded\n")

    changes = _by_path(await sg.diff(first))

    assert sorted(changes) == ["a.txt", "b.txt"]
    assert changes["a.txt"].after == "a, edited\n"
    assert changes["b.txt"].status == "added"
    # Comparing did not create a checkpoint.
    assert [c.commit for c in await sg.list()] == [first]


async def test_diff_marks_binary_files_without_text(workspace: Path, isolated_home: Path) -> None:
    write(workspace / "blob.dat", b"\0\1\2")
    sg = ShadowGit(workspace, isolated_home)
    first = await sg.commit("1")
    write(workspace / "blob.dat", b"\0\3\4")

    [change] = await sg.diff(first)

    assert (change.path, change.binary, change.before, change.after) == (
        "blob.dat",
        True,
        None,
        None,
    )
    assert change.unified_diff == "Binary file blob.dat modified\n"


async def test_diff_of_identical_checkpoints_is_empty(workspace: Path, isolated_home: Path) -> None:
    write(workspace / "a.txt", "a\n")
    sg = ShadowGit(workspace, isolated_home)
    first = await sg.commit("1")
    second = await sg.commit("2")

    assert first != second
    assert await sg.diff(first, second) == []


def _scenario_workspace(workspace: Path) -> None:
    write(workspace / "same.txt", "same\n")
    write(workspace / "edit.txt", "one\n")
    write(workspace / "gone.txt", "bye\n")
    write(workspace / "run.sh", "#!/bin/sh\n")
    write(workspace / "touched.txt", "unchanged\n")
    write(workspace / "deep/a/b.txt", "b\n")
    (workspace / "link").symlink_to("same.txt")


def _scenario_changes(workspace: Path) -> None:
    write(workspace / "edit.txt", "two\n")
    (workspace / "gone.txt").unlink()
    (workspace / "run.sh").chmod(0o755)
    write(workspace / "touched.txt", "unchanged\n")  # rewritten with the same bytes
    write(workspace / "deep/a/new.txt", "new\n")
    write(workspace / "big.bin", "x" * 2048)
    (workspace / "link").unlink()
    (workspace / "link").symlink_to("edit.txt")
    write(workspace / "deep/a/b.txt", "")


async def test_diff_to_the_working_tree_equals_the_diff_to_a_checkpoint_taken_now(
    workspace: Path, isolated_home: Path
) -> None:
    _scenario_workspace(workspace)
    sg = ShadowGit(workspace, isolated_home, max_file_size=1024)
    first = await sg.commit("1")
    _scenario_changes(workspace)

    to_worktree = await sg.diff(first)
    to_checkpoint = await sg.diff(first, await sg.commit("now"))

    assert sorted(c.path for c in to_worktree) == [
        "deep/a/b.txt",
        "deep/a/new.txt",
        "edit.txt",
        "gone.txt",
        "link",
        "run.sh",
    ]
    assert _by_path(to_worktree) == _by_path(to_checkpoint)


async def test_diff_to_the_working_tree_marks_a_file_over_the_size_limit_as_binary(
    workspace: Path, isolated_home: Path
) -> None:
    write(workspace / "data.txt", "small\n")
    sg = ShadowGit(workspace, isolated_home, max_file_size=1024)
    first = await sg.commit("1")
    write(workspace / "data.txt", "y" * 4096)

    [change] = await sg.diff(first)

    assert (change.path, change.status, change.binary, change.after) == (
        "data.txt",
        "modified",
        True,
        None,
    )


async def test_diff_to_the_working_tree_looks_inside_a_repository_cloned_since(
    workspace: Path, isolated_home: Path
) -> None:
    write(workspace / "a.txt", "a\n")
    sg = ShadowGit(workspace, isolated_home)
    first = await sg.commit("1")
    make_repo(workspace / "vendor/lib", {"lib.py": "x = 1\n"})

    changes = _by_path(await sg.diff(first))

    assert sorted(changes) == ["vendor/lib/lib.py"]
    assert changes["vendor/lib/lib.py"].after == "x = 1\n"


async def test_diff_to_the_working_tree_rejects_an_unknown_checkpoint(
    workspace: Path, isolated_home: Path
) -> None:
    write(workspace / "a.txt", "a\n")
    sg = ShadowGit(workspace, isolated_home)
    await sg.commit("1")
    with pytest.raises(CheckpointError, match="unknown checkpoint"):
        await sg.diff("deadbeef" * 5)
    with pytest.raises(CheckpointError, match="not a checkpoint id"):
        await sg.diff("--output=/tmp/x")
