"""A running command streams its output live; Cancel stops the task, which can be resumed; a
10,000-message task opens without putting 10,000 rows in the page."""

from __future__ import annotations

import json
import time

from playwright.sync_api import expect

from pycline.messages import UiMessage
from pycline.storage.records import TaskRecord
from pycline.storage.task_store import TaskStore
from tests.web.conftest import complete, screenshot
from tests.web.test_chat import send_task

LONG_COMMAND = (
    "<execute_command>\n<command>echo first-line-of-output; sleep 60</command>\n"
    "<requires_approval>false</requires_approval>\n</execute_command>"
)


def test_command_output_streams_live_and_cancel_stops_the_task(start_ui, new_page):
    ui = start_ui([LONG_COMMAND, complete()])
    page = new_page()
    page.goto(ui.url)
    send_task(page, "Run the long command")
    expect(page.get_by_label("Command output")).to_contain_text("first-line-of-output")
    expect(page.get_by_text("Running", exact=True)).to_be_visible()
    screenshot(page, "chat-command-running")
    page.get_by_role("button", name="Cancel").click()
    expect(page.get_by_role("button", name="Resume Task")).to_be_visible()
    expect(page.get_by_role("tab", name="Run the long command — cancelled")).to_be_visible()
    assert ui.api_history()[0]["status"] == "cancelled"


def test_a_task_of_ten_thousand_messages_opens_with_only_the_visible_rows_in_the_page(
    start_ui, new_page, isolated_home, workspace
):
    folder = TaskStore(isolated_home).create()
    now = time.time()
    messages = [UiMessage(now, "say", "task", "Ten thousand messages")]
    for i in range(9_999):
        if i % 2:
            tool = json.dumps({"tool": "read_file", "summary": f"read_file m{i}.py"})
            messages.append(UiMessage(now, "say", "tool", tool))
        else:
            messages.append(UiMessage(now, "say", "text", f"Message **{i}** with `code`."))
    messages.append(UiMessage(now, "say", "text", "The very last message."))
    folder.save_ui_messages(messages)
    folder.save_record(
        TaskRecord(
            id=folder.id,
            ts=now,
            task="Ten thousand messages",
            workspace=str(workspace),
            status="completed",
        )
    )
    ui = start_ui([complete()])
    page = new_page()
    page.goto(ui.url)
    page.get_by_role("button", name="History").click()
    page.get_by_role("button", name="Open task: Ten thousand messages").click()
    expect(page.get_by_text("The very last message.")).to_be_visible()
    rendered = page.get_by_role("log", name="Messages").get_by_role("listitem").count()
    assert 0 < rendered < 100
    page.get_by_role("log", name="Messages").evaluate("el => { el.scrollTop = 0; }")
    log = page.get_by_role("log", name="Messages")
    expect(log.get_by_text("Ten thousand messages", exact=True)).to_be_visible()
    expect(page.get_by_role("button", name="Scroll to bottom")).to_be_visible()
    page.get_by_role("button", name="Scroll to bottom").click()
    expect(page.get_by_text("The very last message.")).to_be_visible()


def test_a_command_left_running_in_the_background_can_be_listed_and_stopped(
    start_ui, new_page, isolated_home
):
    settings = isolated_home / "settings" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps({"commandTimeout": 1}))
    ui = start_ui([LONG_COMMAND, complete("Server started.")])
    page = new_page()
    page.goto(ui.url)
    send_task(page, "Start the server")
    expect(page.get_by_text("Server started.").first).to_be_visible()
    page.get_by_role("button", name="Background processes").click()
    dialog = page.get_by_role("dialog", name="Background processes")
    expect(dialog.get_by_text("running", exact=True)).to_be_visible()
    dialog.get_by_role("button", name="Stop echo first-line-of-output; sleep 60").click()
    expect(dialog.get_by_text("running", exact=True)).to_have_count(0)


def test_proceed_while_running_lets_the_task_go_on_while_the_command_keeps_running(
    start_ui, new_page
):
    ui = start_ui([LONG_COMMAND, complete("Carried on.")])
    page = new_page()
    page.goto(ui.url)
    send_task(page, "Start and carry on")
    expect(page.get_by_label("Command output")).to_contain_text("first-line-of-output")
    page.get_by_role("button", name="Proceed While Running").click()
    expect(page.get_by_text("Carried on.").first).to_be_visible()
    [record] = ui.api_history()
    assert "The user chose to proceed while the command keeps running" in ui.api_messages(
        record["id"]
    )
    page.get_by_role("button", name="Background processes").click()
    expect(page.get_by_role("dialog").get_by_text("running", exact=True)).to_be_visible()
