"""Web journeys as a person drives them, by accessible roles: two tasks and switching between
them, the Plan/Act switch, closing tabs, restoring files, cancelling, a command left running,
and a reload."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from tests.web.conftest import complete, write_file
from tests.web.test_chat import send_task

PLAN = (
    "<plan_mode_respond>\n<response>1. Write the file\n2. Check it</response>\n</plan_mode_respond>"
)
WAITING_COMMAND = (
    "<execute_command>\n<command>echo started; while [ ! -e go.flag ]; do sleep 0.1; done; "
    "echo finished</command>\n<requires_approval>false</requires_approval>\n</execute_command>"
)


def _log(page):
    return page.get_by_role("log", name="Messages")


def _finish(page, text: str) -> None:
    """Accept the completion of the task on screen (Cline's "Start New Task")."""
    expect(page.get_by_text(text).first).to_be_visible()
    page.get_by_role("group", name="Actions").get_by_role("button", name="Start New Task").click()


def test_switching_tasks_shows_each_tasks_own_first_message_and_checkpoints(start_ui, new_page):
    # Each task the scripted model runs starts its replies from the first.
    ui = start_ui([write_file("a.txt", "alpha\n"), complete("Written.")])
    page = new_page()
    page.goto(ui.url)
    log = _log(page)
    first_checkpoint = log.locator(".row.checkpoint code").first
    send_task(page, "First task alpha")
    page.get_by_role("button", name="Save", exact=True).click()
    _finish(page, "Written.")
    # The scripted model writes the same file again: changed meanwhile, so there is a diff.
    (ui.workspace / "a.txt").write_text("changed by hand\n", encoding="utf-8")
    send_task(page, "Second task beta")
    expect(log.get_by_text("Second task beta", exact=True)).to_be_visible()
    expect(log.get_by_text("First task alpha", exact=True)).to_have_count(0)
    page.get_by_role("button", name="Save", exact=True).click()
    expect(log.get_by_text("Written.").first).to_be_visible()
    beta_start = first_checkpoint.inner_text()

    page.get_by_role("tab", name="First task alpha").click()
    expect(log.get_by_text("First task alpha", exact=True)).to_be_visible()
    expect(log.get_by_text("Second task beta", exact=True)).to_have_count(0)
    expect(first_checkpoint).not_to_have_text(beta_start)
    alpha_start = first_checkpoint.inner_text()

    # From History while another task is on screen: the opened one's own rows.
    page.get_by_role("button", name="History").click()
    page.get_by_role("button", name="Open task: Second task beta").click()
    expect(log.get_by_text("Second task beta", exact=True)).to_be_visible()
    expect(log.get_by_text("First task alpha", exact=True)).to_have_count(0)
    expect(first_checkpoint).to_have_text(beta_start)
    assert alpha_start != beta_start


def test_the_plans_act_button_moves_the_switch_to_act_and_the_next_task_starts_in_act(
    start_ui, new_page
):
    ui = start_ui([PLAN, complete("Acted on the plan.")])
    page = new_page()
    page.goto(ui.url)
    mode = page.get_by_role("radiogroup", name="Mode")
    mode.get_by_role("radio", name="Plan").click()
    send_task(page, "Plan the change")
    page.get_by_role("group", name="Actions").get_by_role("button", name="Act").click()
    expect(mode.get_by_role("radio", name="Act")).to_have_attribute("aria-checked", "true")
    expect(mode.get_by_role("radio", name="Plan")).to_have_attribute("aria-checked", "false")
    _finish(page, "Acted on the plan.")
    expect(mode.get_by_role("radio", name="Act")).to_have_attribute("aria-checked", "true")
    send_task(page, "The next task")
    expect(_log(page).get_by_text("Acted on the plan.").first).to_be_visible()
    second = next(r for r in ui.api_history() if r["task"] == "The next task")
    said = ui.api_messages(second["id"])
    first = said.index("# Current Mode")
    assert said[first : first + 26] == "# Current Mode\\nACT MODE\\n"


def test_a_finished_tab_says_completed_and_tabs_close(start_ui, new_page):
    ui = start_ui([complete("Done.")])
    page = new_page()
    page.goto(ui.url)
    send_task(page, "Task one")
    _finish(page, "Done.")
    expect(page.get_by_role("tab", name="Task one — completed")).to_be_visible()
    send_task(page, "Task two")
    # Completed as soon as the result shows: the box below only takes optional feedback.
    expect(page.get_by_role("tab", name="Task two — completed")).to_be_visible()
    expect(page.get_by_role("tab")).to_have_count(2)
    page.get_by_role("button", name="Close tab Task one").click()
    expect(page.get_by_role("tab")).to_have_count(1)
    expect(page.get_by_role("tab", name="Task two — completed")).to_have_attribute(
        "aria-selected", "true"
    )
    # Closing the tab on screen shows another task, or the welcome screen when none is left.
    page.get_by_role("button", name="Close tab Task two").click()
    expect(page.get_by_role("tab")).to_have_count(0)
    expect(page.get_by_role("heading", name="What can I do for you?")).to_be_visible()
    assert {r["task"] for r in ui.api_history()} == {"Task one", "Task two"}
    # A closed tab's task is one click away in History.
    page.get_by_role("button", name="History").click()
    page.get_by_role("button", name="Open task: Task one").click()
    expect(_log(page).get_by_text("Task one", exact=True)).to_be_visible()


def test_restore_files_only_leaves_a_completed_task_completed(start_ui, new_page):
    ui = start_ui([write_file("f.txt", "v1\n"), write_file("f.txt", "v2\n"), complete("Wrote it.")])
    page = new_page()
    page.goto(ui.url)
    send_task(page, "Write f.txt")
    page.get_by_role("button", name="Save", exact=True).click()
    expect(page.get_by_text("Approved")).to_have_count(1)
    page.get_by_role("button", name="Save", exact=True).click()
    expect(page.get_by_text("Wrote it.").first).to_be_visible()
    _log(page).get_by_role("button", name="Restore").nth(1).click()
    page.get_by_role("menuitem", name="Restore Files Only").click()
    expect(page.get_by_role("status", name="Notifications")).to_have_text(
        "Restored: 1 file written, 0 deleted."
    )
    assert (ui.workspace / "f.txt").read_text() == "v1\n"
    expect(page.get_by_role("tab", name="Write f.txt — completed")).to_be_visible()
    expect(page.get_by_role("tab", name="Write f.txt — cancelled")).to_have_count(0)
    _finish(page, "Wrote it.")  # the task still takes its answer
    expect(page.get_by_role("tab", name="Write f.txt — completed")).to_be_visible()
    assert ui.api_history()[0]["status"] == "completed"


def test_cancel_says_once_that_the_task_stopped(start_ui, new_page):
    ui = start_ui([WAITING_COMMAND, complete()])
    page = new_page()
    page.goto(ui.url)
    send_task(page, "Wait for the flag")
    expect(page.get_by_label("Command output")).to_contain_text("started")
    page.get_by_role("group", name="Actions").get_by_role("button", name="Cancel").click()
    expect(page.get_by_role("button", name="Resume Task")).to_be_visible()
    said = _log(page).get_by_text(re.compile(r"^Task (stopped|cancelled)"))
    expect(said).to_have_count(1)
    assert ui.api_history()[0]["status"] == "cancelled"


def test_a_command_left_running_says_so_and_the_processes_dialog_follows_it(start_ui, new_page):
    ui = start_ui([WAITING_COMMAND, complete("Carried on.")])
    page = new_page()
    page.goto(ui.url)
    send_task(page, "Start and carry on")
    expect(page.get_by_label("Command output")).to_contain_text("started")
    page.get_by_role("button", name="Proceed While Running").click()
    expect(page.get_by_text("Carried on.").first).to_be_visible()
    row = _log(page).get_by_role("listitem").filter(has=page.get_by_label("Command output"))
    expect(row.get_by_text("Running in background")).to_be_visible()
    expect(row.get_by_text("Completed", exact=True)).to_have_count(0)
    page.get_by_role("button", name="Background processes").click()
    dialog = page.get_by_role("dialog", name="Background processes")
    expect(dialog.get_by_text("running", exact=True)).to_be_visible()
    (ui.workspace / "go.flag").write_text("")
    expect(dialog.get_by_text("exited (0)")).to_be_visible()


# A reopened task is replayed from its event log (the core's recorder), as it was shown live.
def test_a_reopened_task_shows_its_diffs_and_its_context_window(start_ui, new_page):
    ui = start_ui([write_file("d.txt", "kept\n"), complete("Saved d.txt.")])
    page = new_page()
    page.goto(ui.url)
    send_task(page, "Write d.txt")
    page.get_by_role("button", name="Save", exact=True).click()
    _finish(page, "Saved d.txt.")
    assert ui.stop() == 0
    again = start_ui([complete()])
    page.goto(again.url)
    page.get_by_role("button", name="History").click()
    page.get_by_role("button", name="Open task: Write d.txt").click()
    expect(_log(page).get_by_label("Proposed changes")).to_contain_text("+kept")
    bar = page.get_by_role("progressbar", name="Context window")
    expect(bar).to_be_visible()
    expect(bar).not_to_have_attribute("aria-valuemax", "0")
