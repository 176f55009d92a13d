"""The input box (@ and / menus, images, Plan/Act) and the failed-request buttons."""

from __future__ import annotations

import base64
import json

from playwright.sync_api import expect

from tests.web.conftest import complete, screenshot
from tests.web.test_chat import send_task

# A 1x1 PNG.
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)


def test_the_at_menu_finds_files_by_fuzzy_search_and_the_slash_menu_lists_commands(
    start_ui, new_page, workspace
):
    (workspace / "src").mkdir()
    (workspace / "src" / "weather_report.py").write_text("x = 1\n")
    ui = start_ui([complete()])
    page = new_page()
    page.goto(ui.url)
    box = page.get_by_role("textbox", name="Message")
    box.fill("look at @wthrrep")
    box.press("End")
    box.press_sequentially("o")  # typing opens the menu for the word under the caret
    menu = page.get_by_role("listbox", name="Suggestions")
    expect(menu.get_by_role("option", name="src/weather_report.py")).to_be_visible()
    screenshot(page, "input-mentions")
    box.press("Enter")
    expect(box).to_have_value("look at @/src/weather_report.py ")
    box.fill("")
    box.press_sequentially("/new")
    expect(menu.get_by_role("option", name="/newtask")).to_be_visible()
    box.press("Escape")
    expect(menu).to_be_hidden()


def test_an_attached_image_goes_to_the_model_with_the_task(start_ui, new_page, tmp_path):
    image = tmp_path / "shot.png"
    image.write_bytes(PNG)
    ui = start_ui([complete("I see it.")])
    page = new_page()
    page.goto(ui.url)
    page.get_by_label("Add images").last.set_input_files(str(image))
    expect(page.get_by_role("img", name="Image 1")).to_be_visible()
    send_task(page, "What is in the picture?")
    expect(page.get_by_text("I see it.").first).to_be_visible()
    [record] = ui.api_history()
    history = json.loads(ui.api_messages(record["id"]))
    kinds = [block.get("type") for message in history for block in message["content"]]
    assert "image" in kinds


def test_plan_mode_shows_the_plan_and_act_switches_to_acting(start_ui, new_page):
    plan = "<plan_mode_respond>\n<response>First read, then edit.</response>\n</plan_mode_respond>"
    ui = start_ui([plan, complete("Acted on the plan.")])
    page = new_page()
    page.goto(ui.url)
    page.get_by_role("radio", name="Plan").click()
    expect(page.get_by_role("radio", name="Plan")).to_have_attribute("aria-checked", "true")
    send_task(page, "Plan the change")
    expect(page.get_by_text("First read, then edit.")).to_be_visible()
    page.get_by_role("button", name="Act", exact=True).click()
    expect(page.get_by_text("Acted on the plan.").first).to_be_visible()
    assert ui.api_history()


def test_a_failed_request_offers_retry_and_retry_sends_it_again(start_ui, new_page, isolated_home):
    settings = isolated_home / "settings" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps({"maxRetries": 0}))
    failing = {"error": {"kind": "server", "status": 500, "message": "upstream down"}}
    ui = start_ui([failing, complete("Worked the second time.")])
    page = new_page()
    page.goto(ui.url)
    send_task(page, "Try twice")
    expect(page.get_by_role("button", name="Start New Task")).to_be_visible()
    screenshot(page, "chat-request-failed")
    page.get_by_role("button", name="Retry").click()
    expect(page.get_by_text("Worked the second time.").first).to_be_visible()
    assert ui.api_history()


def test_the_slash_menu_lists_the_projects_workflows_and_sending_one_runs_it(
    start_ui, new_page, workspace
):
    flows = workspace / ".clinerules" / "workflows"
    flows.mkdir(parents=True)
    (flows / "release.md").write_text("# Release steps\n\nBump the version, then tag it.\n")
    ui = start_ui([complete()])
    page = new_page()
    page.goto(ui.url)
    box = page.get_by_role("textbox", name="Message")
    box.press_sequentially("/rel")
    menu = page.get_by_role("listbox", name="Suggestions")
    expect(menu.get_by_role("option", name="/release workflow: Release steps")).to_be_visible()
    box.press("Enter")
    expect(box).to_have_value("/release ")
    box.press_sequentially("for 2.0")
    box.press("Enter")
    expect(page.get_by_text("Task Completed").first).to_be_visible()
    [record] = ui.api_history()
    assert "Bump the version, then tag it." in ui.api_messages(record["id"])
