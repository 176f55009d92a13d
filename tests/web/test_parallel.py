"""The Parallel Tasks screen: background tasks (start, answer, open, stop) and worktree tasks
(create, changes, merge, discard), as `pycline tasks|stop|attach` and `pycline worktree` offer."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.web.conftest import complete, followup, screenshot, write_file
from tests.web.test_chat import send_task

CLI = [sys.executable, "-m", "pycline"]
GIT = ["git", "-c", "user.name=Test", "-c", "user.email=test@example.invalid"]


@pytest.fixture
def runtime(isolated_home: Path) -> Iterator[dict[str, str]]:
    # Control sockets need short paths (108 bytes): not under pytest's deep tmp_path.
    folder = tempfile.mkdtemp(prefix="rt", dir="/tmp")
    yield {"XDG_RUNTIME_DIR": folder}
    for state in (isolated_home / "background").glob("bg-*.json"):
        pid = json.loads(state.read_text()).get("pid")
        with contextlib.suppress(OSError):
            if pid and b"pycline.cli.bg_worker" in Path(f"/proc/{pid}/cmdline").read_bytes():
                os.kill(pid, signal.SIGKILL)
    shutil.rmtree(folder, ignore_errors=True)


def test_background_tasks_are_started_answered_opened_and_stopped(start_ui, new_page, runtime):
    ui = start_ui(
        [followup("Which file?", "a.txt", "b.txt"), complete("Background done.")], env=runtime
    )
    page = new_page()
    page.goto(ui.url)
    page.get_by_role("button", name="Parallel Tasks").click()
    view = page.get_by_role("region", name="Parallel Tasks")
    view.get_by_role("textbox", name="Background task").fill("Ask me in the background")
    view.get_by_role("button", name="Start in background").click()
    item = view.get_by_role("listitem", name="Ask me in the background")
    expect(item.get_by_text("waiting", exact=True)).to_be_visible(timeout=30_000)
    expect(item.get_by_text("Waiting for: Which file?")).to_be_visible()
    screenshot(page, "parallel-tasks")
    item.get_by_role("button", name="b.txt").click()
    expect(item.get_by_text("completed", exact=True)).to_be_visible(timeout=30_000)
    item.get_by_role("button", name="Open").click()
    expect(page.get_by_text("Background done.").first).to_be_visible()
    assert "b.txt" in ui.api_messages(ui.api_history()[0]["id"])

    # Follow, as `pycline attach`: the question shows in the chat and is answered there.
    page.get_by_role("button", name="Parallel Tasks").click()
    view.get_by_role("textbox", name="Background task").fill("Followed one")
    view.get_by_role("button", name="Start in background").click()
    followed = view.get_by_role("listitem", name="Followed one")
    expect(followed.get_by_text("waiting", exact=True)).to_be_visible(timeout=30_000)
    followed.get_by_role("button", name="Follow").click()
    expect(page.get_by_text("Cline has a question:")).to_be_visible()
    page.get_by_role("group", name="Actions").get_by_role("button", name="a.txt").click()
    expect(page.get_by_text("Background done.").first).to_be_visible(timeout=30_000)

    page.get_by_role("button", name="Parallel Tasks").click()
    expect(followed.get_by_text("completed", exact=True)).to_be_visible(timeout=30_000)
    view.get_by_role("textbox", name="Background task").fill("Second one")
    view.get_by_role("button", name="Start in background").click()
    second = view.get_by_role("listitem", name="Second one")
    expect(second.get_by_text("waiting", exact=True)).to_be_visible(timeout=30_000)
    second.get_by_role("button", name="Stop").click()
    expect(second.get_by_text("cancelled", exact=True)).to_be_visible(timeout=30_000)


def test_worktrees_are_created_compared_merged_and_discarded(start_ui, new_page, workspace):
    ui = start_ui([complete()])
    (workspace / "README.md").write_text("hello\n")
    subprocess.run(["git", "add", "."], cwd=workspace, check=True)
    subprocess.run([*GIT, "commit", "-qm", "first"], cwd=workspace, check=True)
    page = new_page()
    page.goto(ui.url)
    page.get_by_role("button", name="Parallel Tasks").click()
    view = page.get_by_role("region", name="Parallel Tasks")
    expect(view.get_by_text("No worktree tasks.")).to_be_visible()
    view.get_by_role("textbox", name="Worktree name").fill("feature")
    view.get_by_role("button", name="Create worktree").click()
    tree = view.get_by_role("listitem", name="feature")
    expect(tree.get_by_text("pycline/feature")).to_be_visible()
    path = Path(tree.locator("span").filter(has_text="/feature").first.inner_text())
    (path / "added.txt").write_text("from the worktree\n")
    tree.get_by_role("button", name="Changes in feature").click()
    changes = page.get_by_role("dialog", name="Changes in feature")
    expect(changes.get_by_text("A added.txt")).to_be_visible()
    screenshot(page, "worktree-changes")
    changes.get_by_role("button", name="Close").click()
    tree.get_by_role("button", name="Merge feature").click()
    expect(view.get_by_text("No worktree tasks.")).to_be_visible()
    assert (workspace / "added.txt").read_text() == "from the worktree\n"

    view.get_by_role("textbox", name="Worktree name").fill("scrap")
    view.get_by_role("button", name="Create worktree").click()
    scrap = view.get_by_role("listitem", name="scrap")
    expect(scrap).to_be_visible()
    page.on("dialog", lambda d: d.accept())
    scrap.get_by_role("button", name="Discard scrap").click()
    expect(view.get_by_text("No worktree tasks.")).to_be_visible()
    branches = subprocess.run(
        ["git", "branch", "--list", "pycline/*"], cwd=workspace, capture_output=True, text=True
    )
    assert branches.stdout.strip() == ""


def test_a_task_started_in_a_new_worktree_edits_only_the_worktree(start_ui, new_page, workspace):
    ui = start_ui([write_file("w.txt", "from the task\n"), complete("In the worktree.")])
    (workspace / "README.md").write_text("hello\n")
    subprocess.run(["git", "add", "."], cwd=workspace, check=True)
    subprocess.run([*GIT, "commit", "-qm", "first"], cwd=workspace, check=True)
    page = new_page()
    page.goto(ui.url)
    page.get_by_role("button", name="Parallel Tasks").click()
    view = page.get_by_role("region", name="Parallel Tasks")
    view.get_by_role("textbox", name="Worktree name").fill("work")
    view.get_by_role("textbox", name="Worktree task").fill("Write w.txt")
    view.get_by_role("button", name="Start in a new worktree").click()
    page.get_by_role("button", name="Save", exact=True).click()
    expect(page.get_by_text("In the worktree.").first).to_be_visible()
    assert not (workspace / "w.txt").exists()
    [info] = json.loads(
        subprocess.run(
            [*CLI, "worktree", "--cwd", str(workspace), "list", "--json"],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "PYCLINE_HOME": str(ui.home)},
        ).stdout
    )
    assert info["branch"] == "pycline/work"
    assert (Path(info["path"]) / "w.txt").read_text() == "from the task\n"
    page.get_by_role("button", name="Parallel Tasks").click()
    view.get_by_role("listitem", name="work").get_by_role("button", name="Merge work").click()
    expect(view.get_by_text("No worktree tasks.")).to_be_visible()
    assert (workspace / "w.txt").read_text() == "from the task\n"


def _cli_json(ui: Any, runtime: dict[str, str], *args: str, stdin: str = "") -> Any:
    env = {**os.environ, "PYCLINE_HOME": str(ui.home), **runtime}
    done = subprocess.run(
        [*CLI, *args], input=stdin, capture_output=True, text=True, env=env, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout) if "--json" in args else done.stdout


def test_a_task_of_one_page_is_listed_and_answered_elsewhere(start_ui, new_page, runtime):
    # Each task of this server runs the script from its start: a question, then the end.
    here = start_ui([followup("Which colour?", "Red", "Blue"), complete("Chosen.")], env=runtime)
    page = new_page()
    page.goto(here.url)
    send_task(page, "Pick a colour")
    blue = page.get_by_role("button", name="Blue")
    expect(blue).to_be_visible()
    [entry] = _cli_json(here, runtime, "tasks", "--json")
    assert entry["front_end"] == "web" and entry["status"] == "waiting"
    assert entry["task"] == "Pick a colour" and "Which colour?" in entry["question"]

    # `pycline attach` in a terminal answers it; the page shows it answered, and goes on.
    shown = _cli_json(here, runtime, "attach", entry["id"], stdin="2\n")
    assert "Which colour?" in shown and "Chosen." in shown
    expect(page.get_by_text("Chosen.").first).to_be_visible()
    expect(blue).to_be_hidden()

    # Another web UI lists the page's next task with the other live ones, and answers it.
    page.get_by_role("button", name="New Task").first.click()
    send_task(page, "Pick again")
    expect(page.get_by_role("button", name="Red")).to_be_visible()
    there = start_ui([complete()], env=runtime)
    other = new_page()
    other.goto(there.url)
    other.get_by_role("button", name="Parallel Tasks").click()
    view = other.get_by_role("region", name="Parallel Tasks")
    item = view.get_by_role("listitem", name="Pick again")
    expect(item.get_by_text("web", exact=True)).to_be_visible(timeout=30_000)
    expect(item.get_by_text("Waiting for: Which colour?")).to_be_visible()
    item.get_by_role("button", name="Red").click()
    expect(page.get_by_role("button", name="Red")).to_be_hidden()
    expect(page.get_by_text("Chosen.").first).to_be_visible()
    again = next(r for r in here.api_history() if r["task"] == "Pick again")
    assert "Red" in here.api_messages(again["id"])
