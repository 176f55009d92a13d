"""Steering from the page: a message typed while the task runs is queued (listed above the
input, editable, cancellable) and reaches the model's next request once the running command
ends; Interrupt & send stops the command first."""

from __future__ import annotations

import json

from playwright.sync_api import expect

from tests.web.conftest import complete
from tests.web.test_chat import send_task

WAITS = (
    "<execute_command>\n<command>while [ ! -f go ]; do sleep 0.05; done; echo finished</command>\n"
    "<requires_approval>false</requires_approval>\n</execute_command>"
)


def _queue(page, text: str) -> None:
    page.get_by_role("textbox", name="Message").fill(text)
    page.get_by_role("button", name="Queue message", exact=True).click()


def test_a_message_typed_while_a_command_runs_is_queued_edited_and_sent_after_it(
    start_ui, new_page
):
    ui = start_ui([WAITS, complete("Tabs now.")])
    page = new_page()
    page.goto(ui.url)
    send_task(page, "Format the code")
    expect(page.get_by_text("Running", exact=True)).to_be_visible()
    queued = page.get_by_role("region", name="Queued messages")
    _queue(page, "use tabs")
    expect(queued).to_contain_text("use tabs")
    _queue(page, "and delete the build")
    expect(queued).to_contain_text("and delete the build")
    page.get_by_role("button", name="Cancel queued message 2").click()
    expect(queued).not_to_contain_text("delete the build")
    page.get_by_role("button", name="Edit queued message 1").click()
    page.get_by_role("textbox", name="Edit queued message 1").fill("use tabs, not spaces")
    page.get_by_role("button", name="Save queued message 1").click()
    expect(queued).to_contain_text("use tabs, not spaces")
    (task,) = ui.api_history()
    sent = json.loads(ui.api_messages(task["id"]))
    assert "use tabs" not in json.dumps(sent)  # nothing reaches the model while it runs
    (ui.workspace / "go").write_text("", encoding="utf-8")  # the command ends
    expect(page.get_by_text("Tabs now.")).to_be_visible()
    expect(queued).to_have_count(0)
    log = page.get_by_role("log", name="Messages")
    expect(log.get_by_text("use tabs, not spaces", exact=True)).to_be_visible()
    users = [m for m in json.loads(ui.api_messages(task["id"])) if m["role"] == "user"]
    second = json.dumps(users[1])
    assert "finished" in second and "use tabs, not spaces" in second
    assert "delete the build" not in json.dumps(users)


def test_interrupt_and_send_stops_the_running_command_and_the_model_gets_the_message(
    start_ui, new_page
):
    sleeps = (
        "<execute_command>\n<command>echo started-it; sleep 120</command>\n"
        "<requires_approval>false</requires_approval>\n</execute_command>"
    )
    ui = start_ui([sleeps, complete("Stopped it.")])
    page = new_page()
    page.goto(ui.url)
    send_task(page, "Wait a long time")
    expect(page.get_by_label("Command output")).to_contain_text("started-it")
    page.get_by_role("textbox", name="Message").fill("stop, wrong folder")
    page.get_by_role("button", name="Interrupt and send").click()
    expect(page.get_by_text("Stopped it.")).to_be_visible()
    (task,) = ui.api_history()
    users = [m for m in json.loads(ui.api_messages(task["id"])) if m["role"] == "user"]
    second = json.dumps(users[1])
    assert "started-it" in second and "stop, wrong folder" in second
