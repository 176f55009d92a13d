"""`pycline batch` with the local backend: real subprocesses, real git, the scripted provider."""

from __future__ import annotations

import json
import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests.app.batch_helpers import (
    COMPLETE,
    batch_command,
    batch_env,
    command_reply,
    results,
    run_batch,
    write_file_reply,
    write_script,
    write_tasks,
)
from tests.app.gitrepo import make_repo, run_git, status


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo", {"app.py": "VALUE = 1\n"})


def test_each_task_works_in_its_own_copy_and_reports_patch_check_and_usage(
    tmp_path: Path, repo: Path, isolated_home: Path
) -> None:
    write_script(tmp_path / "good.json", [write_file_reply("app.py", "VALUE = 2"), COMPLETE])
    write_script(tmp_path / "lazy.json", [COMPLETE])
    check = "grep -q 'VALUE = 2' app.py"
    tasks = write_tasks(
        tmp_path / "tasks.jsonl",
        [
            {
                "id": "fixed",
                "repo": "repo",
                "task": "set VALUE to 2",
                "check": check,
                "script": "good.json",
            },
            {
                "id": "lazy",
                "repo": "repo",
                "task": "set VALUE to 2",
                "check": check,
                "script": "lazy.json",
            },
            {"id": "nocheck", "repo": "repo", "task": "set VALUE to 2", "script": "good.json"},
        ],
    )
    out = tmp_path / "results.jsonl"
    proc = run_batch(tasks, out, "--workers", "3", home=isolated_home)
    # Two of three succeeded: a script running the batch must not read that as success.
    assert proc.returncode == 1, proc.stderr
    assert "1 of 3 tasks did not succeed" in proc.stderr
    rows = results(out)
    assert rows["fixed"]["status"] == "success" and rows["fixed"]["check"]["passed"]
    assert rows["fixed"]["patch"].count("+VALUE = 2") == 1
    assert rows["fixed"]["requests"] == 2 and rows["fixed"]["tokens_in"] > 0
    assert Path(rows["fixed"]["transcript"]).is_relative_to(isolated_home)
    assert rows["lazy"]["status"] == "failure" and rows["lazy"]["patch"] == ""
    assert rows["lazy"]["check"]["exit_code"] == 1
    assert rows["nocheck"]["status"] == "success" and rows["nocheck"]["check"] is None
    # The source repository is never touched, and the copies are gone.
    assert (repo / "app.py").read_text() == "VALUE = 1\n" and status(repo) == ""
    assert "success rate 67%" in proc.stdout


def test_worktree_isolation_leaves_no_worktree_behind(
    tmp_path: Path, repo: Path, isolated_home: Path
) -> None:
    script = write_script(tmp_path / "s.json", [write_file_reply("new.py", "x = 1"), COMPLETE])
    tasks = write_tasks(
        tmp_path / "tasks.jsonl",
        [
            {"id": f"w{n}", "repo": str(repo), "task": "add", "script": str(script)}
            for n in range(3)
        ],
    )
    out = tmp_path / "out.jsonl"
    proc = run_batch(tasks, out, "--isolation", "worktree", "--workers", "3", home=isolated_home)
    assert proc.returncode == 0, proc.stderr
    assert {r["status"] for r in results(out).values()} == {"success"}
    assert all("+x = 1" in r["patch"] for r in results(out).values())
    assert run_git(repo, "worktree", "list").count("\n") == 1
    assert status(repo) == ""


def test_broken_tasks_fail_alone_and_resume_skips_finished_ids(
    tmp_path: Path, repo: Path, isolated_home: Path
) -> None:
    good = write_script(tmp_path / "good.json", [COMPLETE])
    empty = write_script(tmp_path / "empty.json", [])
    tasks = write_tasks(
        tmp_path / "tasks.jsonl",
        [
            {"id": "ok", "repo": "repo", "task": "t", "script": str(good)},
            {
                "id": "bad-setup",
                "repo": "repo",
                "task": "t",
                "setup": "exit 3",
                "script": str(good),
            },
            {"id": "no-repo", "repo": "missing", "task": "t", "script": str(good)},
            {"id": "no-replies", "repo": "repo", "task": "t", "script": str(empty)},
        ],
    )
    out = tmp_path / "out.jsonl"
    out.write_text('{"id": "ok", "status": "success"}\n{"id": "torn', encoding="utf-8")
    refused = run_batch(tasks, out, home=isolated_home)
    assert refused.returncode == 2 and "--resume" in refused.stderr
    proc = run_batch(tasks, out, "--resume", home=isolated_home)
    # None of the tasks this run ran succeeded: the exit code says so (scripts, CI).
    assert proc.returncode == 1, proc.stderr
    assert "no task succeeded" in proc.stderr
    assert "1 task(s) already done" in proc.stderr
    rows = results_tolerant(out)
    assert rows["ok"] == {"id": "ok", "status": "success"}  # not run again
    assert rows["bad-setup"]["status"] == "error" and "setup failed" in rows["bad-setup"]["error"]
    assert rows["no-repo"]["status"] == "error" and "does not exist" in rows["no-repo"]["error"]
    assert rows["no-replies"]["status"] == "incomplete" and not rows["no-replies"]["completed"]


def results_tolerant(out: Path) -> dict[str, dict[str, object]]:
    rows: dict[str, dict[str, object]] = {}
    for line in out.read_text(encoding="utf-8").splitlines():
        try:
            row = json.loads(line)
        except json.JSONDecodeError:
            continue
        rows[row["id"]] = row
    return rows


def test_timeout_and_cost_cap_stop_a_task_and_leave_no_process(
    tmp_path: Path, repo: Path, isolated_home: Path
) -> None:
    hang = write_script(tmp_path / "hang.json", [command_reply("sleep 300"), COMPLETE])
    pricey = write_script(
        tmp_path / "pricey.json",
        [
            {
                "text": write_file_reply("a.txt", "a"),
                "usage": {"input_tokens": 10, "output_tokens": 1, "cost": 0.4},
            },
            {
                "text": write_file_reply("b.txt", "b"),
                "usage": {"input_tokens": 10, "output_tokens": 1, "cost": 0.4},
            },
            COMPLETE,
        ],
    )
    out = tmp_path / "out.jsonl"
    hangs = write_tasks(
        tmp_path / "hangs.jsonl",
        [{"id": "hangs", "repo": "repo", "task": "t", "script": str(hang), "check": "true"}],
    )
    started = time.monotonic()
    proc = run_batch(hangs, out, "--timeout", "5", home=isolated_home)
    assert proc.returncode == 1, proc.stderr
    assert time.monotonic() - started < 60
    # No timeout here: a loaded machine must not turn the budget stop into a timeout.
    costly = write_tasks(
        tmp_path / "pricey.jsonl",
        [{"id": "pricey", "repo": "repo", "task": "t", "script": str(pricey)}],
    )
    proc = run_batch(costly, out, "--resume", "--max-cost-per-task", "0.5", home=isolated_home)
    assert proc.returncode == 1, proc.stderr
    rows = results(out)
    assert rows["hangs"]["status"] == "timeout" and rows["hangs"]["check"] is None
    assert rows["pricey"]["status"] == "over_budget" and rows["pricey"]["cost"] > 0.5


def _as_from_a_shell() -> None:
    """Ctrl-C as a shell leaves it for a command it starts: delivered, with its default action
    (the test runner's process may have blocked or ignored it, and a child inherits both)."""
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_ctrl_c_stops_the_batch_cleanly_and_keeps_finished_results(
    tmp_path: Path, repo: Path, isolated_home: Path
) -> None:
    quick = write_script(tmp_path / "quick.json", [COMPLETE])
    hang = write_script(tmp_path / "hang.json", [command_reply("sleep 300"), COMPLETE])
    tasks = write_tasks(
        tmp_path / "tasks.jsonl",
        [
            {"id": "quick", "repo": "repo", "task": "t", "script": str(quick)},
            {"id": "hangs", "repo": "repo", "task": "t", "script": str(hang)},
        ],
    )
    out = tmp_path / "out.jsonl"
    proc = subprocess.Popen(
        batch_command(tasks, out, "--workers", "2"),
        env=batch_env(isolated_home),
        stdin=subprocess.DEVNULL,  # not the test runner's own channel (pytest-xdist's workers)
        preexec_fn=_as_from_a_shell,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stderr is not None
        line = proc.stderr.readline()  # the progress line of the first finished task
        assert "quick: success" in line
        proc.send_signal(signal.SIGINT)
        # The agent gets 10 s to save its task before a hard kill; a loaded machine adds more.
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, err
    assert "--resume" in err
    assert set(results(out)) == {"quick"}


def test_a_workspace_task_runs_in_that_very_folder(tmp_path: Path, isolated_home: Path) -> None:
    folder = tmp_path / "prepared"
    folder.mkdir()
    (folder / "data.txt").write_text("input\n")
    script = write_script(tmp_path / "s.json", [write_file_reply("out.txt", "made"), COMPLETE])
    tasks = write_tasks(
        tmp_path / "tasks.jsonl",
        [
            {
                "id": "here",
                "workspace": "prepared",
                "task": "t",
                "script": str(script),
                "check": "test -f out.txt && test -f data.txt",
            }
        ],
    )
    out = tmp_path / "out.jsonl"
    proc = run_batch(tasks, out, home=isolated_home)
    assert proc.returncode == 0, proc.stderr
    row = results(out)["here"]
    assert row["status"] == "success" and "+made" in row["patch"]
    assert (folder / "out.txt").read_text() == "made\n"
    assert sorted(p.name for p in folder.iterdir()) == ["data.txt", "out.txt"]  # no .git added


def test_bad_task_lines_are_reported_with_their_line_number(
    tmp_path: Path, isolated_home: Path
) -> None:
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text('{"id": "a", "repo": "r", "task": "t"}\n{"id": "b", "task": "t"}\n')
    proc = run_batch(tasks, tmp_path / "out.jsonl", home=isolated_home)
    assert proc.returncode == 2 and "tasks.jsonl:2" in proc.stderr
