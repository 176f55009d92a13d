"""The model picker switches the running task's model (Act, Plan or both), as `/model` does."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.fakes.openai_server import FakeOpenAI
from tests.web.conftest import complete, screenshot, write_file
from tests.web.test_chat import send_task


def test_a_model_picked_mid_task_answers_the_next_request(start_ui, new_page):
    replies = [write_file("m.txt", "1\n"), complete("Switched.")]
    with FakeOpenAI(replies, models=("first-model", "second-model")) as fake:
        ui = start_ui(
            [],
            *("--provider", "openai", "--base-url", fake.base_url),
            *("--api-key", "sk-fake", "--model", "first-model"),
        )
        page = new_page()
        page.goto(ui.url)
        send_task(page, "Write m.txt")
        save = page.get_by_role("button", name="Save", exact=True)
        expect(save).to_be_visible()
        model_button = page.get_by_role("button", name="Model", exact=True)
        expect(model_button).to_have_text("openai/first-model")
        model_button.click()
        picker = page.get_by_role("dialog", name="Model for this task")
        picker.get_by_role("radio", name="Act", exact=True).click()
        picker.get_by_role("option", name="second-model").click()
        expect(picker.get_by_role("textbox", name="Model name")).to_have_value("second-model")
        screenshot(page, "model-picker")
        picker.get_by_role("button", name="Use this model").click()
        expect(picker).to_be_hidden()
        expect(model_button).to_have_text("openai/second-model")
        expect(page.get_by_text("(openai/second-model)").first).to_be_visible()
        save.click()
        expect(page.get_by_text("Switched.").first).to_be_visible()
        assert [r.body["model"] for r in fake.completions] == ["first-model", "second-model"]


def test_the_plan_model_is_switched_on_its_own(start_ui, new_page):
    ui = start_ui([write_file("p.txt", "1\n"), complete()])
    page = new_page()
    page.goto(ui.url)
    send_task(page, "Write p.txt")
    expect(page.get_by_role("button", name="Save", exact=True)).to_be_visible()
    page.get_by_role("button", name="Model", exact=True).click()
    picker = page.get_by_role("dialog", name="Model for this task")
    picker.get_by_role("radio", name="Plan", exact=True).click()
    picker.get_by_role("textbox", name="Model name").fill("planner")
    picker.get_by_role("button", name="Use this model").click()
    expect(picker).to_be_hidden()
    page.get_by_role("button", name="Model", exact=True).click()
    picker = page.get_by_role("dialog", name="Model for this task")
    expect(picker.get_by_text("Plan: scripted/planner")).to_be_visible()
    expect(picker.get_by_text("Act: scripted/")).to_be_visible()
