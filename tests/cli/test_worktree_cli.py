"""`pycline run --worktree` end to end: a real subprocess, real git, the scripted provider."""

from __future__ import annotations

import json
from pathlib import Path

from tests.app.gitrepo import make_repo, run_git, status
from tests.cli.test_headless import COMPLETE, run_cli, script

WRITE = "<write_to_file>\n<path>{path}</path>\n<content>\n{text}\n</content>\n</write_to_file>"


def _run_task(tmp_path: Path, home: Path, repo: Path, path: str, *flags: str) -> object:
    replies = [WRITE.format(path=path, text="from the task"), COMPLETE]
    return run_cli(
        [
            "run",
            "--provider",
            "scripted",
            "--script",
            str(script(tmp_path, replies)),
            "--yes",
            *flags,
            "add a file",
        ],
        home=home,
        cwd=repo,
    )


def test_run_in_a_worktree_keeps_the_branch_and_leaves_the_users_tree_alone(
    isolated_home: Path, tmp_path: Path
) -> None:
    repo = make_repo(tmp_path / "repo", {"README.md": "hello\n"})
    proc = _run_task(tmp_path, isolated_home, repo, "notes.txt", "--worktree=notes")
    assert proc.returncode == 0, proc.stderr
    assert "Kept branch pycline/notes" in proc.stdout
    assert "A notes.txt" in proc.stdout
    assert not (repo / "notes.txt").exists() and status(repo) == ""
    assert run_git(repo, "show", "pycline/notes:notes.txt") == "from the task\n"
    # Checkpoints work inside the worktree.
    history = run_cli(["history", "--json"], home=isolated_home, cwd=repo)
    task_id = json.loads(history.stdout)[0]["id"]
    listing = run_cli(["checkpoints", task_id], home=isolated_home, cwd=repo)
    assert "after write_to_file notes.txt" in listing.stdout, listing.stderr


def test_run_in_a_worktree_merges_into_the_original_branch_when_asked(
    isolated_home: Path, tmp_path: Path
) -> None:
    repo = make_repo(tmp_path / "repo", {"README.md": "hello\n"})
    proc = _run_task(
        tmp_path, isolated_home, repo, "merged.txt", "--worktree", "--on-finish", "merge", "--json"
    )
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    assert report["type"] == "worktree" and report["merge"]["how"] == "fast-forward"
    assert (repo / "merged.txt").read_text() == "from the task\n"
    assert status(repo) == "" and report["removed"]
    assert "pycline/" not in run_git(repo, "branch", "--list")


def test_the_interactive_session_asks_what_to_do_with_the_worktree_at_the_end(
    isolated_home: Path, tmp_path: Path
) -> None:
    import pexpect

    from tests.cli.test_interactive import spawn

    repo = make_repo(tmp_path / "repo", {"README.md": "hello\n"})
    replies = [WRITE.format(path="done.txt", text="interactive"), COMPLETE]
    child = spawn(
        [
            "--provider",
            "scripted",
            "--script",
            str(script(tmp_path, replies)),
            "--worktree=ui",
            "write a file",
        ],
        isolated_home,
        repo,
    )
    child.expect(r"Allow write_to_file for 'done.txt'\? ")
    child.sendline("y")
    child.expect("Press Enter to accept, or type feedback")
    child.sendline("")
    child.expect("Task> ")
    child.sendeof()
    child.expect(r"A done.txt")
    child.expect(r"\[m\]erge, \[k\]eep, \[d\]iff, dis\[c\]ard\? ")
    child.sendline("d")
    child.expect(r"\+interactive")
    child.expect(r"dis\[c\]ard\? ")
    child.sendline("m")
    child.expect("Merged pycline/ui into main")
    child.expect(pexpect.EOF)
    child.close()
    assert (repo / "done.txt").read_text() == "interactive\n" and status(repo) == ""


def test_a_task_that_did_not_complete_is_kept_even_when_merge_was_asked(
    isolated_home: Path, tmp_path: Path
) -> None:
    repo = make_repo(tmp_path / "repo", {"README.md": "hello\n"})
    replies = [WRITE.format(path="half.txt", text="half done")]  # then the script runs dry
    proc = run_cli(
        [
            "run",
            "--provider",
            "scripted",
            "--script",
            str(script(tmp_path, replies)),
            "--yes",
            "--worktree=half",
            "--on-finish",
            "merge",
            "do it",
        ],
        home=isolated_home,
        cwd=repo,
    )
    assert proc.returncode == 1
    assert "kept, not merged" in proc.stderr and "Kept branch pycline/half" in proc.stdout
    assert not (repo / "half.txt").exists()
    assert run_git(repo, "show", "pycline/half:half.txt") == "half done\n"


def test_a_task_given_to_worktree_as_its_name_runs_as_the_task_in_a_named_worktree(
    isolated_home: Path, tmp_path: Path
) -> None:
    repo = make_repo(tmp_path / "repo", {"README.md": "hello\n"})
    replies = [WRITE.format(path="fix.txt", text="fixed"), COMPLETE]
    proc = run_cli(
        ["run", "--provider", "scripted", "--script", str(script(tmp_path, replies)), "--yes",
         "--worktree", "fix the bug"],
        home=isolated_home,
        cwd=repo,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    history = json.loads(run_cli(["history", "--json"], home=isolated_home, cwd=repo).stdout)
    assert [r["task"] for r in history] == ["fix the bug"]
    assert "Kept branch pycline/" in proc.stdout


def test_a_worktree_name_that_cannot_be_one_says_what_to_type(
    isolated_home: Path, tmp_path: Path
) -> None:
    repo = make_repo(tmp_path / "repo", {"README.md": "hello\n"})
    proc = run_cli(
        ["run", "--provider", "scripted", "--script", str(script(tmp_path, [COMPLETE])),
         "--worktree", "fix the bug", "and the tests"],
        home=isolated_home,
        cwd=repo,
    )  # fmt: skip
    assert proc.returncode == 2
    assert "--worktree=NAME" in proc.stderr and "--worktree --" in proc.stderr
    assert run_git(repo, "worktree", "list").count("\n") == 1  # none was made


def test_a_refused_merge_at_the_end_exits_non_zero_and_keeps_the_branch(
    isolated_home: Path, tmp_path: Path
) -> None:
    repo = make_repo(tmp_path / "repo", {"README.md": "hello\n"})
    (repo / "README.md").write_text("the user's own edit\n")  # a dirty checkout: no merge
    proc = _run_task(tmp_path, isolated_home, repo, "new.txt", "--worktree=n", "--on-finish",
                     "merge")  # fmt: skip
    assert proc.returncode == 1, proc.stdout
    assert "Not merged:" in proc.stdout
    assert run_git(repo, "show", "pycline/n:new.txt") == "from the task\n"
    assert (repo / "README.md").read_text() == "the user's own edit\n"
