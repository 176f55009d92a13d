"""The chat end to end in a real browser against `pycline ui` with the scripted provider."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import expect

from tests.web.conftest import complete, followup, screenshot, write_file


def send_task(page: Any, text: str) -> None:
    page.get_by_role("textbox", name="Message").fill(text)
    page.get_by_role("textbox", name="Message").press("Enter")


def test_a_task_runs_end_to_end_and_an_approved_edit_is_saved_to_disk(start_ui, new_page):
    ui = start_ui(
        [
            write_file(
                "hello.py",
                "print('hello')\n",
                prose="Here is the **plan**:\n\n```python\nprint('hello')\n```",
            ),
            complete("Created `hello.py`."),
        ]
    )
    page = new_page()
    page.goto(ui.url)
    screenshot(page, "welcome")
    send_task(page, "Create hello.py")
    expect(page.get_by_text("Cline wants to create or overwrite this file:")).to_be_visible()
    save = page.get_by_role("button", name="Save", exact=True)
    expect(save).to_be_visible()
    expect(page.get_by_role("button", name="Reject")).to_be_visible()
    screenshot(page, "chat-approval")
    assert not (ui.workspace / "hello.py").exists()
    save.click()
    expect(page.get_by_text("Task Completed").first).to_be_visible()
    assert (ui.workspace / "hello.py").read_text() == "print('hello')\n"
    expect(page.get_by_role("button", name="Start New Task")).to_be_visible()
    screenshot(page, "chat-completed")


def test_rejecting_with_feedback_sends_the_typed_text_to_the_model(start_ui, new_page):
    ui = start_ui([write_file("a.txt", "one\n"), complete("Understood.")])
    page = new_page()
    page.goto(ui.url)
    send_task(page, "Write a.txt")
    reject = page.get_by_role("button", name="Reject")
    expect(reject).to_be_visible()
    page.get_by_role("textbox", name="Message").fill("Use b.txt instead, please")
    reject.click()
    expect(page.get_by_text("Task Completed").first).to_be_visible()
    assert not (ui.workspace / "a.txt").exists()
    [record] = ui.api_history()
    assert "Use b.txt instead, please" in ui.api_messages(record["id"])


def test_an_edit_changed_in_the_browser_is_what_gets_saved(start_ui, new_page):
    ui = start_ui([write_file("c.txt", "proposed\n"), complete()])
    page = new_page()
    page.goto(ui.url)
    send_task(page, "Write c.txt")
    page.get_by_text("Edit before saving").click()
    page.get_by_role("textbox", name="Edit the proposed file before saving").fill("mine\n")
    page.get_by_role("button", name="Save", exact=True).click()
    expect(page.get_by_text("Task Completed").first).to_be_visible()
    assert (ui.workspace / "c.txt").read_text() == "mine\n"


def test_a_follow_up_option_clicked_is_the_answer_the_model_gets(start_ui, new_page):
    ui = start_ui([followup("Which colour?", "Red", "Blue"), complete("Blue it is.")])
    page = new_page()
    page.goto(ui.url)
    send_task(page, "Pick a colour")
    expect(page.get_by_text("Cline has a question:")).to_be_visible()
    blue = page.get_by_role("button", name="Blue")
    expect(blue).to_be_visible()
    screenshot(page, "chat-followup")
    blue.click()
    expect(page.get_by_text("Blue it is.").first).to_be_visible()
    [record] = ui.api_history()
    assert "Blue" in ui.api_messages(record["id"])


def test_a_reload_mid_task_shows_the_open_question_and_the_task_continues(start_ui, new_page):
    ui = start_ui([write_file("r.txt", "x\n"), complete("Reloaded fine.")])
    page = new_page()
    page.goto(ui.url)
    send_task(page, "Write r.txt")
    expect(page.get_by_role("button", name="Save", exact=True)).to_be_visible()
    page.reload()  # the token is gone from the address after login: the stored session carries on
    expect(page.get_by_role("tab", name="Write r.txt — waiting")).to_have_attribute(
        "aria-selected", "true"
    )
    expect(page.get_by_text("Write r.txt").first).to_be_visible()
    page.get_by_role("button", name="Save", exact=True).click()
    expect(page.get_by_text("Reloaded fine.").first).to_be_visible()
    assert (ui.workspace / "r.txt").read_text() == "x\n"


def test_two_tasks_run_at_once_and_a_second_tab_sees_both(start_ui, new_page):
    ui = start_ui([write_file("same.txt", "1\n"), complete("Finished.")])
    page = new_page()
    page.goto(ui.url)
    send_task(page, "First task")
    expect(page.get_by_role("button", name="Save", exact=True)).to_be_visible()
    page.get_by_role("button", name="New Task").click()
    send_task(page, "Second task")
    tabs = page.get_by_role("tab")
    expect(tabs).to_have_count(2)
    expect(page.get_by_role("tab", name="First task — waiting")).to_be_visible()
    expect(page.get_by_role("tab", name="Second task — waiting")).to_be_visible()
    screenshot(page, "chat-two-tasks")
    other = page.context.new_page()  # a second tab of the same browser: it reattaches
    other.goto(ui.base + "/")
    expect(other.get_by_role("tab")).to_have_count(2)
    other.get_by_role("tab", name="First task — waiting").click()
    other.get_by_role("button", name="Save", exact=True).click()
    expect(other.get_by_text("Finished.").first).to_be_visible()
    expect(page.get_by_role("tab", name="Second task — waiting")).to_be_visible()
    page.get_by_role("tab", name="Second task — waiting").click()
    page.get_by_role("button", name="Save", exact=True).click()
    # The first task wrote same.txt while this approval was open, so it is asked again.
    expect(page.get_by_text("the file changed while waiting for approval").first).to_be_visible()
    page.get_by_role("button", name="Save", exact=True).click()
    expect(page.get_by_text("Finished.").first).to_be_visible()
    assert (ui.workspace / "same.txt").read_text() == "1\n"
    assert {r["task"] for r in ui.api_history()} == {"First task", "Second task"}
