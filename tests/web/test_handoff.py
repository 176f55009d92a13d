"""An approved `new_task` continues in the page as the new task (as in the terminal and ACP)."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from tests.web.conftest import complete
from tests.web.test_chat import send_task

NEW_TASK = "<new_task>\n<context>\nContinue: add the tests.\n</context>\n</new_task>"


def test_an_approved_new_task_continues_as_the_new_task_on_screen(start_ui, new_page):
    ui = start_ui([NEW_TASK, complete("Tests added.")])
    page = new_page()
    page.goto(ui.url)
    send_task(page, "big job /newtask")
    approve = page.get_by_role("button", name="Approve", exact=True)
    expect(approve).to_be_visible()
    approve.click()
    expect(page.get_by_text("Tests added.").first).to_be_visible()
    tab = page.get_by_role("tab", name=re.compile(r"^Continue: add the tests\."))
    expect(tab).to_have_attribute("aria-selected", "true")
    expect(page.get_by_role("tab", name=re.compile(r"^big job .newtask"))).to_be_visible()
    records = ui.api_history()
    assert sorted(r["task"] for r in records) == ["Continue: add the tests.", "big job /newtask"]
