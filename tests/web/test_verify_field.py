"""The page's task form takes a goal check: the task is verified by it, and the page shows each
check and its result as a row of its own."""

from __future__ import annotations

from playwright.sync_api import expect

from pycline.storage.task_store import TaskStore
from tests.web.conftest import complete, followup
from tests.web.test_chat import send_task

CHECK = "test -f ok.txt && echo check-passed || { echo no-ok-file; exit 3; }"


def test_a_task_started_with_a_verify_command_is_held_to_it(start_ui, new_page, workspace):
    ui = start_ui([complete("First claim."), followup("Shall I go on?", "yes"), complete("Now.")])
    page = new_page()
    page.goto(ui.url)
    page.get_by_role("textbox", name="Verify command").fill(CHECK)
    send_task(page, "make ok.txt")
    expect(page.get_by_text("no-ok-file").first).to_be_visible()
    (workspace / "ok.txt").write_text("made\n", encoding="utf-8")
    page.get_by_role("button", name="yes").click()
    expect(page.get_by_text("check-passed").first).to_be_visible()
    expect(page.get_by_text("Now.").first).to_be_visible()
    expect(page.get_by_role("textbox", name="Verify command")).to_be_hidden()
    [record] = ui.api_history()
    assert TaskStore(ui.home).open(record["id"]).load_record().goal == CHECK
