"""The screens beside the chat, as a person uses them: History across folders, Settings, the /
menu, adding an MCP server, and background tasks (an edit to approve, a reload while following)."""

from __future__ import annotations

import re
import time
from pathlib import Path

from playwright.sync_api import expect

from pycline.app.services.slash_commands import web_commands
from pycline.messages import UiMessage
from pycline.storage.records import TaskRecord
from pycline.storage.task_store import TaskStore
from tests.web.conftest import complete, followup, write_file
from tests.web.test_parallel import runtime  # noqa: F401  (a fixture)


def _saved_task(home: Path, text: str, folder: Path) -> None:
    saved = TaskStore(home).create()
    saved.save_ui_messages([UiMessage(time.time(), "say", "task", text)])
    saved.save_record(
        TaskRecord(
            id=saved.id, ts=time.time(), task=text, workspace=str(folder), status="completed"
        )
    )


def test_history_shows_this_folders_tasks_and_names_the_folder_of_others(
    start_ui, new_page, isolated_home, workspace, tmp_path
):
    other = tmp_path / "elsewhere"
    other.mkdir()
    _saved_task(isolated_home, "Task in this project", workspace)
    _saved_task(isolated_home, "Task in another folder", other)
    ui = start_ui([complete()])
    page = new_page()
    page.goto(ui.url)
    page.get_by_role("button", name="History").click()
    history = page.get_by_role("region", name="History")
    here = history.get_by_role("listitem").filter(has_text="Task in this project")
    expect(here).to_be_visible()
    expect(history.get_by_text("Task in another folder")).to_have_count(0)
    workspace_only = history.get_by_role("checkbox", name="Workspace Only")
    expect(workspace_only).to_be_checked()
    workspace_only.uncheck()
    there = history.get_by_role("listitem").filter(has_text="Task in another folder")
    expect(there.get_by_label("Folder", exact=True)).to_have_text(str(other))
    expect(here.get_by_label("Folder", exact=True)).to_have_text(str(workspace))


def test_settings_offer_real_providers_one_way_to_save_and_no_markdown_marks(start_ui, new_page):
    ui = start_ui([complete()])
    page = new_page()
    page.goto(ui.url)
    page.get_by_role("button", name="Settings").click()
    settings = page.get_by_role("region", name="Settings")
    provider = settings.get_by_role("combobox", name="act provider")
    expect(provider.locator("option", has_text="anthropic")).to_have_count(1)
    expect(provider.locator("option", has_text="scripted")).to_have_count(0)
    expect(settings.get_by_role("button", name=re.compile("save|apply", re.I))).to_have_count(1)
    expect(settings).not_to_contain_text("`")


def test_the_slash_menu_lists_the_commands_the_terminal_lists(start_ui, new_page, workspace):
    flows = workspace / ".clinerules" / "workflows"
    flows.mkdir(parents=True)
    (flows / "release.md").write_text("Cut a release.\n")
    ui = start_ui([complete()])
    page = new_page()
    page.goto(ui.url)
    page.get_by_role("textbox", name="Message").fill("/")
    menu = page.get_by_role("listbox", name="Suggestions")
    expected = [f"/{c.name}" for c in web_commands()] + ["/release"]
    expect(menu.get_by_role("option")).to_have_count(len(expected))
    names = [o.split()[0] for o in menu.get_by_role("option").all_inner_texts()]
    assert names == expected
    # pycline's own commands work here too: /plan switches the mode, /help lists them all.
    box = page.get_by_role("textbox", name="Message")
    box.fill("/plan")
    box.press("Escape")
    box.press("Enter")
    expect(page.get_by_role("radio", name="Plan")).to_have_attribute("aria-checked", "true")
    box.fill("/help")
    box.press("Escape")
    box.press("Enter")
    listed = page.get_by_role("dialog", name="Commands")
    for command in web_commands():
        expect(listed.get_by_text(command.usage, exact=True)).to_be_visible()


def test_an_mcp_server_shows_at_once_while_it_connects(start_ui, new_page):
    ui = start_ui([complete()])
    page = new_page()
    page.goto(ui.url)
    page.get_by_role("button", name="MCP Servers").click()
    view = page.get_by_role("region", name="MCP Servers")
    view.get_by_role("textbox", name="Server name").fill("slow")
    view.get_by_role("textbox", name="Command or URL").fill("sleep 600")  # never answers
    view.get_by_role("button", name="Add").click()
    expect(view.get_by_text("slow", exact=True)).to_be_visible()
    expect(view.get_by_text(re.compile("connecting"))).to_be_visible()


def test_a_background_edit_waiting_for_approval_shows_its_diff(start_ui, new_page, runtime):  # noqa: F811
    ui = start_ui([write_file("bg.txt", "from the background\n"), complete("Done.")], env=runtime)
    page = new_page()
    page.goto(ui.url)
    page.get_by_role("button", name="Parallel Tasks").click()
    view = page.get_by_role("region", name="Parallel Tasks")
    view.get_by_role("textbox", name="Background task").fill("Write bg.txt")
    view.get_by_role("button", name="Start in background").click()
    item = view.get_by_role("listitem", name="Write bg.txt")
    expect(item.get_by_text("waiting", exact=True)).to_be_visible(timeout=30_000)
    expect(item.get_by_label("Proposed changes")).to_contain_text("+from the background")
    item.get_by_role("button", name="Save").click()
    expect(item.get_by_text("completed", exact=True)).to_be_visible(timeout=30_000)
    assert (ui.workspace / "bg.txt").read_text() == "from the background\n"


def test_a_followed_background_task_is_still_on_screen_after_a_reload(start_ui, new_page, runtime):  # noqa: F811
    ui = start_ui([followup("Which file?", "a.txt", "b.txt"), complete("Picked.")], env=runtime)
    page = new_page()
    page.goto(ui.url)
    page.get_by_role("button", name="Parallel Tasks").click()
    view = page.get_by_role("region", name="Parallel Tasks")
    view.get_by_role("textbox", name="Background task").fill("Followed across a reload")
    view.get_by_role("button", name="Start in background").click()
    item = view.get_by_role("listitem", name="Followed across a reload")
    expect(item.get_by_text("waiting", exact=True)).to_be_visible(timeout=30_000)
    item.get_by_role("button", name="Follow").click()
    expect(page.get_by_text("Cline has a question:")).to_be_visible()
    page.reload()
    expect(page.get_by_text("Cline has a question:")).to_be_visible()
    # The task as typed (the folder it runs in is no word of it).
    expect(page.get_by_role("tab", name=re.compile("^Followed across a reload — "))).to_be_visible()
    expect(page.get_by_role("region", name="Chat").get_by_text("--cwd")).to_have_count(0)
    page.get_by_role("group", name="Actions").get_by_role("button", name="b.txt").click()
    expect(page.get_by_text("Picked.").first).to_be_visible(timeout=30_000)
