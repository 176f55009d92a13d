from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from pycline.app.services import worktrees
from pycline.app.services.worktrees import MergeConflict, Merged, MergeRefused, WorktreeError
from tests.app.gitrepo import make_repo, run_git, status

FILES = {"a.txt": "one\ntwo\nthree\n", "b.txt": "alpha\nbeta\n", "src/c.py": "x = 1\n"}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo", FILES)


async def test_worktree_is_created_outside_the_users_tree_on_its_own_branch(
    repo: Path, isolated_home: Path
) -> None:
    info = await worktrees.create(repo, isolated_home, name="fix-it")
    folder = Path(info.path)
    assert folder.is_dir() and folder.is_relative_to(isolated_home.resolve())
    assert not folder.is_relative_to(repo)
    assert info.branch == "pycline/fix-it" and info.target == "main"
    assert (folder / "a.txt").read_text() == FILES["a.txt"]
    assert run_git(folder, "rev-parse", "--abbrev-ref", "HEAD").strip() == "pycline/fix-it"
    assert status(repo) == ""
    assert [w.name for w in await worktrees.list_worktrees(repo, isolated_home)] == ["fix-it"]


async def test_names_are_checked_and_never_reused(repo: Path, isolated_home: Path) -> None:
    await worktrees.create(repo, isolated_home, name="same")
    with pytest.raises(WorktreeError):
        await worktrees.create(repo, isolated_home, name="same")
    for bad in ("../escape", "-rf", "a b", "x.lock"):
        with pytest.raises(WorktreeError):
            await worktrees.create(repo, isolated_home, name=bad)


async def test_carried_changes_appear_uncommitted_and_leave_the_users_index_alone(
    repo: Path, isolated_home: Path
) -> None:
    (repo / "a.txt").write_text("one\nTWO\nthree\n")
    (repo / "new.txt").write_text("untracked\n")
    (repo / "b.txt").unlink()
    run_git(repo, "add", "a.txt")  # one change staged, the others not
    before = status(repo)
    info = await worktrees.create(repo, isolated_home, name="carry", carry_changes=True)
    folder = Path(info.path)
    assert info.carried
    assert (folder / "a.txt").read_text() == "one\nTWO\nthree\n"
    assert (folder / "new.txt").read_text() == "untracked\n"
    assert not (folder / "b.txt").exists()
    assert run_git(folder, "rev-parse", "HEAD") == run_git(repo, "rev-parse", "HEAD")
    assert status(folder) != ""  # carried, not committed
    assert status(repo) == before


async def test_summary_and_diff_cover_committed_and_uncommitted_work(
    repo: Path, isolated_home: Path
) -> None:
    info = await worktrees.create(repo, isolated_home, name="sum")
    folder = Path(info.path)
    (folder / "a.txt").write_text("one\nthree\n")
    await worktrees.commit_work(info, "first")
    (folder / "d.txt").write_text("new\nfile\n")
    report = await worktrees.summary(info)
    assert report.commits == 1
    changes = {f.path: (f.status, f.added, f.removed) for f in report.files}
    assert changes == {"a.txt": ("M", 0, 1), "d.txt": ("A", 2, 0)}
    text = await worktrees.diff(info)
    assert "-two" in text and "+new" in text


async def test_two_tasks_at_once_merge_cleanly_into_the_checked_out_branch(
    repo: Path, isolated_home: Path
) -> None:
    first, second = await asyncio.gather(
        worktrees.create(repo, isolated_home, name="one"),
        worktrees.create(repo, isolated_home, name="two"),
    )
    (Path(first.path) / "a.txt").write_text("one\ntwo\nthree\nfour\n")
    (Path(second.path) / "b.txt").write_text("ALPHA\nbeta\n")
    results = await asyncio.gather(
        worktrees.merge(first, isolated_home), worktrees.merge(second, isolated_home)
    )
    assert all(isinstance(r, Merged) for r in results)
    assert sorted(r.how for r in results if isinstance(r, Merged)) == [
        "fast-forward",
        "merge-commit",
    ]
    # The user's clean checkout of main was fast-forwarded by git to the merged result.
    assert (repo / "a.txt").read_text() == "one\ntwo\nthree\nfour\n"
    assert (repo / "b.txt").read_text() == "ALPHA\nbeta\n"
    assert status(repo) == ""
    assert run_git(repo, "log", "--format=%s", "-1").startswith("Merge pycline worktree task")


async def test_a_conflicting_pair_reports_the_conflicting_files_and_forces_nothing(
    repo: Path, isolated_home: Path
) -> None:
    first = await worktrees.create(repo, isolated_home, name="left")
    second = await worktrees.create(repo, isolated_home, name="right")
    (Path(first.path) / "a.txt").write_text("one\nLEFT\nthree\n")
    (Path(second.path) / "a.txt").write_text("one\nRIGHT\nthree\n")
    (Path(second.path) / "b.txt").write_text("alpha\nbeta\ngamma\n")
    assert isinstance(await worktrees.merge(first, isolated_home), Merged)
    main_after_first = run_git(repo, "rev-parse", "main")
    result = await worktrees.merge(second, isolated_home)
    assert result == MergeConflict("main", ("a.txt",))
    assert run_git(repo, "rev-parse", "main") == main_after_first
    assert (repo / "a.txt").read_text() == "one\nLEFT\nthree\n"
    assert status(repo) == ""
    assert run_git(repo, "rev-parse", "--verify", "pycline/right").strip()  # work kept


async def test_a_dirty_checkout_of_the_target_is_never_touched(
    repo: Path, isolated_home: Path
) -> None:
    info = await worktrees.create(repo, isolated_home, name="task")
    (Path(info.path) / "b.txt").write_text("changed by the task\n")
    (repo / "a.txt").write_text("the user's own edit\n")
    head = run_git(repo, "rev-parse", "HEAD")
    result = await worktrees.merge(info, isolated_home)
    assert isinstance(result, MergeRefused) and "uncommitted changes" in result.reason
    assert (repo / "a.txt").read_text() == "the user's own edit\n"
    assert (repo / "b.txt").read_text() == FILES["b.txt"]
    assert run_git(repo, "rev-parse", "HEAD") == head


async def test_a_target_that_is_not_checked_out_moves_by_ref_only(
    repo: Path, isolated_home: Path
) -> None:
    info = await worktrees.create(repo, isolated_home, name="task")
    run_git(repo, "switch", "--quiet", "-c", "elsewhere")
    (repo / "scratch.txt").write_text("user's untracked file\n")
    (Path(info.path) / "b.txt").write_text("merged by ref\n")
    result = await worktrees.merge(info, isolated_home)
    assert isinstance(result, Merged) and not result.tree_updated
    assert run_git(repo, "show", "main:b.txt") == "merged by ref\n"
    assert (repo / "b.txt").read_text() == FILES["b.txt"]
    assert status(repo) == "?? scratch.txt\n"


async def test_discard_removes_the_worktree_and_its_branch(repo: Path, isolated_home: Path) -> None:
    info = await worktrees.create(repo, isolated_home, name="gone")
    (Path(info.path) / "a.txt").write_text("thrown away\n")
    await worktrees.remove(info, isolated_home, delete_branch=True)
    assert not Path(info.path).exists()
    assert "pycline/gone" not in run_git(repo, "branch", "--list")
    assert await worktrees.list_worktrees(repo, isolated_home) == []
    assert (repo / "a.txt").read_text() == FILES["a.txt"]
