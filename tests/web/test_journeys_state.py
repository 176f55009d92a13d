"""Web journeys about state that must come from the task and the settings, not from what the
page happened to see: History while a result waits for its answer (and from the terminal)."""

from __future__ import annotations

import os
import subprocess
import sys

from playwright.sync_api import expect

from tests.web.conftest import complete, write_file
from tests.web.test_chat import send_task


def _log(page):
    return page.get_by_role("log", name="Messages")


def test_a_web_task_at_its_result_is_completed_with_its_tokens_in_history_and_the_terminal(
    start_ui, new_page
):
    ui = start_ui([write_file("a.txt", "x\n"), complete("Wrote a.txt.")])
    page = new_page()
    page.goto(ui.url)
    send_task(page, "Write a.txt")
    page.get_by_role("button", name="Save", exact=True).click()
    expect(_log(page).get_by_text("Wrote a.txt.").first).to_be_visible()
    # Nobody has clicked "Start New Task": the result shows, and the task is done.
    page.get_by_role("button", name="History").click()
    row = page.get_by_role("listitem").filter(has_text="Write a.txt")
    expect(row.get_by_text("completed", exact=True)).to_be_visible()
    expect(row.get_by_text("running", exact=True)).to_have_count(0)
    expect(row.get_by_text("Tokens ↑0 ↓0")).to_have_count(0)
    listed = subprocess.run(
        [sys.executable, "-m", "pycline", "history"],
        cwd=ui.workspace,
        env={**os.environ, "PYCLINE_HOME": str(ui.home), "NO_COLOR": "1"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    line = next(x for x in listed.stdout.splitlines() if "Write a.txt" in x)
    assert " completed " in line and " running " not in line, listed.stdout
    (record,) = ui.api_history()
    assert record["status"] == "completed" and record["tokens_in"] > 0


PLAN = (
    "<plan_mode_respond>\n<response>1. Write the file\n2. Check it</response>\n</plan_mode_respond>"
)


def test_after_a_reload_a_task_waiting_at_its_plan_shows_the_switch_on_plan(start_ui, new_page):
    ui = start_ui([PLAN, complete("Acted.")])
    page = new_page()
    page.goto(ui.url)
    mode = page.get_by_role("radiogroup", name="Mode")
    mode.get_by_role("radio", name="Plan").click()
    send_task(page, "Plan the change")
    expect(
        page.get_by_role("group", name="Actions").get_by_role("button", name="Act")
    ).to_be_visible()
    page.reload()
    expect(_log(page).get_by_text("Plan the change", exact=True)).to_be_visible()
    expect(mode.get_by_role("radio", name="Plan")).to_have_attribute("aria-checked", "true")
    expect(mode.get_by_role("radio", name="Act")).to_have_attribute("aria-checked", "false")
    # The plan's Act still moves it, after the reload as before.
    page.get_by_role("group", name="Actions").get_by_role("button", name="Act").click()
    expect(mode.get_by_role("radio", name="Act")).to_have_attribute("aria-checked", "true")
    expect(_log(page).get_by_text("Acted.").first).to_be_visible()
