"""Comparing checkpoints with each other and with the working tree."""

from __future__ import annotations

from pathlib import Path

from pycline.checkpoints import FileChange, ShadowGit

from .helpers import write


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
