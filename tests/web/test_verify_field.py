"""The page's task form takes a goal check: the task is verified by it, and the page shows each
check and its result as a row of its own."""

from __future__ import annotations

from playwright.sync_api import expect

from pycline.storage.task_store import TaskStore
from tests.web.conftest import complete, followup
from tests.web.test_chat import send_task

# The task's steps (a check in the sandbox, checkpoints) take a loaded machine a while.
SLOW = 60_000
CHECK = "test -f ok.txt && echo check-$((6*7))-passed || { echo no-ok-$((6*7)); exit 3; }"


def test_a_task_started_with_a_verify_command_is_held_to_it(start_ui, new_page, workspace):
    ui = start_ui([complete("First claim."), followup("Shall I go on?", "yes"), complete("Now.")])
    page = new_page()
    page.goto(ui.url)
    page.get_by_role("textbox", name="Verify command").fill(CHECK)
    send_task(page, "make ok.txt")
    expect(page.get_by_text("no-ok-42").first).to_be_visible(timeout=SLOW)
    (workspace / "ok.txt").write_text("made\n", encoding="utf-8")
    expect(page.get_by_text("Shall I go on?").first).to_be_visible(timeout=SLOW)
    page.get_by_role("button", name="yes").click()
    expect(page.get_by_text("check-42-passed").first).to_be_visible(timeout=SLOW)
    expect(page.get_by_text("Now.").first).to_be_visible(timeout=SLOW)
    expect(page.get_by_role("textbox", name="Verify command")).to_be_hidden()
    [record] = ui.api_history()
    assert TaskStore(ui.home).open(record["id"]).load_record().goal == CHECK


def test_a_task_started_in_auto_mode_runs_a_sandboxed_command_without_asking(
    start_ui, new_page, workspace
):
    run = (
        "<execute_command>\n<command>echo ran-unasked > ran.txt</command>\n"
        "<requires_approval>true</requires_approval>\n</execute_command>"
    )
    ui = start_ui([run, complete("Ran it.")], env={"PYCLINE_SANDBOX": "workspace-write"})
    page = new_page()
    page.goto(ui.url)
    page.get_by_role("checkbox", name="Auto (sandboxed)").check()
    send_task(page, "run it")
    expect(page.get_by_text("Ran it.").first).to_be_visible(timeout=SLOW)
    expect(page.get_by_text("auto (sandboxed): commands run unasked").first).to_be_visible()
    assert (workspace / "ran.txt").read_text() == "ran-unasked\n"
    expect(page.get_by_role("button", name="Approve")).to_have_count(0)
