"""Creating, listing, pruning the shadow repository; what it tracks; failures."""

from __future__ import annotations

import asyncio
import os
import stat
from pathlib import Path

import pytest

from pycline.checkpoints import CheckpointError, ShadowGit
from pycline.checkpoints.runner import GitRunner

from .helpers import shadow_tree, write


async def test_works_in_a_folder_that_is_not_a_git_repository(
    workspace: Path, isolated_home: Path
) -> None:
    write(workspace / "notes.txt", "plain folder\n")
    sg = ShadowGit(workspace, isolated_home)

    first = await sg.commit("1")
    write(workspace / "notes.txt", "changed\n")
    await sg.restore(first)

    assert (workspace / "notes.txt").read_text() == "plain folder\n"
    assert not (workspace / ".git").exists()


async def test_init_is_idempotent_and_a_new_instance_sees_earlier_checkpoints(
    workspace: Path, isolated_home: Path
) -> None:
    write(workspace / "a.txt", "a\n")
    sg = ShadowGit(workspace, isolated_home)
    await sg.init()
    await sg.init()
    first = await sg.commit("first turn")

    again = ShadowGit(workspace, isolated_home)
    await again.init()
    second = await again.commit("second turn")

    listed = await again.list()
    assert [(c.commit, c.message, c.seq) for c in listed] == [
        (first, "first turn", 1),
        (second, "second turn", 2),
    ]
    assert listed[0].created_at <= listed[1].created_at


async def test_every_commit_gets_its_own_hash_even_without_changes(
    workspace: Path, isolated_home: Path
) -> None:
    sg = ShadowGit(workspace, isolated_home)  # an empty workspace, even

    hashes = [await sg.commit("same message") for _ in range(3)]

    assert len(set(hashes)) == 3
    assert all(len(h) == 40 for h in hashes)


async def test_a_turn_that_changed_nothing_writes_no_tree_but_another_process_change_is_seen(
    workspace: Path, isolated_home: Path
) -> None:
    write(workspace / "a.txt", "a\n")
    sg = ShadowGit(workspace, isolated_home)
    first = await sg.commit("first")
    spawned = sg.git_processes
    unchanged = await sg.commit("nothing changed")
    # ls-files, commit-tree, update-ref: no write-tree for an index that did not change.
    assert sg.git_processes - spawned == 3
    assert shadow_tree(sg, unchanged) == shadow_tree(sg, first)
    # Another process sharing the workspace's shadow repository stages a change: the index is
    # no longer the one this instance wrote its tree from.
    write(workspace / "b.txt", "b\n")
    other = ShadowGit(workspace, isolated_home)
    await other.commit("the other process")
    seen = await sg.commit("after the other process")
    assert [path for _, path in shadow_tree(sg, seen)] == ["a.txt", "b.txt"]


async def test_dependencies_build_outputs_media_and_large_files_are_not_tracked(
    workspace: Path, isolated_home: Path
) -> None:
    write(workspace / "src/app.py", "code\n")
    write(workspace / "node_modules/react/index.js", "dep\n")
    write(workspace / "sub/node_modules/x.js", "nested dep\n")
    write(workspace / ".venv/lib/site.py", "venv\n")
    write(workspace / "pkg/__pycache__/m.cpython-311.pyc", b"\0pyc")
    write(workspace / "dist/bundle.js", "built\n")
    write(workspace / "assets/video.mp4", b"\0video")
    write(workspace / "release.zip", b"PK")
    write(workspace / "big.csv", "x" * 3000)
    write(workspace / "extra/skip-me.txt", "custom exclude\n")
    sg = ShadowGit(workspace, isolated_home, max_file_size=2000, extra_excludes=["extra/"])
    first = await sg.commit("1")
    write(workspace / "src/grows.txt", "small\n")
    await sg.commit("2")
    write(workspace / "src/grows.txt", "y" * 2500)
    third = await sg.commit("3")

    added = {c.path for c in await sg.diff(first, third)}

    assert {path for _, path in shadow_tree(sg, first)} == {"src/app.py"}
    assert added == set()  # grows.txt came and went again once it passed the limit


async def test_a_large_file_that_shrinks_is_tracked_again(
    workspace: Path, isolated_home: Path
) -> None:
    write(workspace / "log.txt", "z" * 5000)
    sg = ShadowGit(workspace, isolated_home, max_file_size=1000)
    first = await sg.commit("1")
    write(workspace / "log.txt", "short now\n")
    second = await sg.commit("2")

    [change] = await sg.diff(first, second)
    assert (change.path, change.status) == ("log.txt", "added")


async def test_prune_keeps_the_newest_checkpoints_and_gc_reclaims_space(
    workspace: Path, isolated_home: Path
) -> None:
    sg = ShadowGit(workspace, isolated_home)
    commits = []
    for i in range(5):
        write(workspace / "data.txt", os.urandom(200_000).hex())
        commits.append(await sg.commit(f"turn {i}"))
    before = await sg.disk_usage()

    removed = await sg.prune(keep_last=2)

    assert removed == 3
    assert [c.commit for c in await sg.list()] == commits[-2:]
    assert await sg.disk_usage() < before
    with pytest.raises(CheckpointError):
        await sg.restore(commits[0])
    await sg.restore(commits[3])
    await sg.gc()
    assert len((workspace / "data.txt").read_text()) == 400_000


async def test_unknown_or_malformed_checkpoint_ids_are_rejected(
    workspace: Path, isolated_home: Path
) -> None:
    write(workspace / "a.txt", "a\n")
    sg = ShadowGit(workspace, isolated_home)
    await sg.commit("1")

    for bad in ("0" * 40, "--output=/tmp/x", "HEAD", "main", ""):
        with pytest.raises(CheckpointError):
            await sg.restore(bad)
    assert (workspace / "a.txt").read_text() == "a\n"


async def test_refuses_to_checkpoint_the_home_folder(
    tmp_path: Path, isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    with pytest.raises(CheckpointError):
        await ShadowGit(tmp_path, isolated_home).init()


def _hanging_git(tmp_path: Path) -> tuple[Path, Path]:
    """A fake git that reports its pid through a FIFO, then hangs until killed."""
    fifo = tmp_path / "pid.fifo"
    os.mkfifo(fifo)
    exe = tmp_path / "fake-git"
    exe.write_text(f"#!/bin/sh\necho $$ > '{fifo}'\nexec tail -f /dev/null\n", encoding="utf-8")
    exe.chmod(exe.stat().st_mode | stat.S_IXUSR)
    return exe, fifo


async def test_a_hung_git_is_killed_at_the_timeout(tmp_path: Path) -> None:
    exe, fifo = _hanging_git(tmp_path)
    runner = GitRunner(tmp_path / "shadow", tmp_path, timeout=1.0, executable=str(exe))
    pid = asyncio.create_task(asyncio.to_thread(fifo.read_text))

    with pytest.raises(CheckpointError, match="timed out"):
        await runner.run("status")

    with pytest.raises(ProcessLookupError):
        os.kill(int(await asyncio.wait_for(pid, 10)), 0)


async def test_cancelling_a_checkpoint_kills_its_git(tmp_path: Path) -> None:
    exe, fifo = _hanging_git(tmp_path)
    runner = GitRunner(tmp_path / "shadow", tmp_path, timeout=60, executable=str(exe))
    task = asyncio.create_task(runner.run("add", "-A"))
    # Reading the FIFO returns once the child has started: no guessing with sleeps.
    pid = int(await asyncio.wait_for(asyncio.to_thread(fifo.read_text), 10))
    task.cancel()

    with pytest.raises(asyncio.CancelledError):
        await task

    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


async def test_a_checkpoint_of_many_new_files_packs_them_instead_of_one_file_each(
    workspace: Path, isolated_home: Path
) -> None:
    for i in range(700):
        write(workspace / f"gen/f{i}.txt", f"generated {i}\n")
    sg = ShadowGit(workspace, isolated_home)

    commit = await sg.commit("generated")

    loose = [p for p in (sg.git_dir / "objects").glob("??/*") if p.is_file()]
    assert len(shadow_tree(sg, commit)) == 700
    assert len(loose) < 20  # trees and the commit; the 700 blobs went into a pack
