"""History (search, favourite, open, resume, delete) and checkpoints (Compare, Restore) in the UI."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import expect

from tests.web.conftest import complete, screenshot, write_file
from tests.web.test_chat import send_task


def test_restore_files_only_puts_the_file_back_as_it_was_at_the_checkpoint(start_ui, new_page):
    ui = start_ui(
        [write_file("f.txt", "v1\n"), write_file("f.txt", "v2\n"), complete("Two versions.")]
    )
    page = new_page()
    page.goto(ui.url)
    send_task(page, "Write f.txt twice")
    page.get_by_role("button", name="Save", exact=True).click()
    expect(page.get_by_text("Approved")).to_have_count(1)
    page.get_by_role("button", name="Save", exact=True).click()
    expect(page.get_by_text("Two versions.").first).to_be_visible()
    assert (ui.workspace / "f.txt").read_text() == "v2\n"
    page.get_by_role("button", name="View Changes").click()
    changes = page.get_by_role("dialog", name="Changes made by this task")
    expect(changes.get_by_text("+v2")).to_be_visible()
    changes.get_by_role("button", name="Close").click()
    markers = page.locator(".row.checkpoint")
    expect(markers).to_have_count(3)  # the task start and each write
    markers.nth(0).get_by_role("button", name="Compare").click()
    dialog = page.get_by_role("dialog", name="Changes since checkpoint")
    expect(dialog.get_by_text("f.txt", exact=True)).to_be_visible()
    expect(dialog.get_by_text("+v2")).to_be_visible()
    screenshot(page, "checkpoint-compare")
    dialog.get_by_role("button", name="Close").click()
    markers.nth(1).get_by_role("button", name="Restore").click()
    screenshot(page, "checkpoint-restore-menu")
    page.get_by_role("menuitem", name="Restore Files Only").click()
    expect(page.get_by_role("status", name="Notifications")).to_contain_text("Restored")
    assert (ui.workspace / "f.txt").read_text() == "v1\n"


def test_restore_files_and_task_rewinds_the_conversation_and_resume_continues(start_ui, new_page):
    ui = start_ui([write_file("g.txt", "v1\n"), write_file("g.txt", "v2\n"), complete("All done.")])
    page = new_page()
    page.goto(ui.url)
    send_task(page, "Write g.txt twice")
    page.get_by_role("button", name="Save", exact=True).click()
    expect(page.get_by_text("Approved")).to_have_count(1)
    page.get_by_role("button", name="Save", exact=True).click()
    expect(page.get_by_text("All done.").first).to_be_visible()
    page.locator(".row.checkpoint").nth(1).get_by_role("button", name="Restore").click()
    page.get_by_role("menuitem", name="Restore Files & Task").click()
    expect(page.get_by_role("status", name="Notifications")).to_contain_text("Restored")
    expect(page.get_by_role("button", name="Resume Task")).to_be_visible()
    assert (ui.workspace / "g.txt").read_text() == "v1\n"
    expect(page.get_by_text("All done.")).to_have_count(0)  # the rewound part is gone
    page.get_by_role("button", name="Resume Task").click()
    # The scripted model starts its replies over: the first write is asked again.
    expect(page.get_by_role("button", name="Save", exact=True)).to_be_visible()


def test_history_lists_searches_favourites_opens_and_deletes_tasks(start_ui, new_page):
    ui = start_ui([complete("Nothing to do.")])
    page = new_page()
    page.on("dialog", lambda d: d.accept())
    page.goto(ui.url)
    send_task(page, "Check the weather module")
    page.get_by_role("button", name="Start New Task").click()
    recent = page.get_by_role("list", name="Recent tasks")
    expect(recent.get_by_role("button", name="Check the weather module")).to_be_visible()
    page.get_by_role("button", name="History").click()
    history = page.get_by_role("region", name="History")
    item = history.get_by_role("button", name="Open task: Check the weather module")
    expect(item).to_be_visible()
    history.get_by_role("searchbox", name="Search history").fill("nothing like it")
    expect(item).to_have_count(0)
    history.get_by_role("searchbox", name="Search history").fill("weather")
    expect(item).to_be_visible()
    history.get_by_role("button", name="Favorite").click()
    expect(history.get_by_role("button", name="Unfavorite")).to_be_visible()
    assert ui.api_history()[0]["favorite"] is True
    history.get_by_role("checkbox", name="Favorites Only").check()
    expect(item).to_be_visible()
    for option in ("Oldest", "Most Expensive", "Most Tokens", "Newest"):
        history.get_by_role("combobox", name="Sort").select_option(label=option)
        expect(item).to_be_visible()
    with page.expect_download() as download:
        history.get_by_role("button", name="Export").click()
    assert download.value.suggested_filename == f"task-{ui.api_history()[0]['id']}.md"
    exported = Path(download.value.path()).read_text(encoding="utf-8")
    assert "Check the weather module" in exported
    screenshot(page, "history")
    history.get_by_role("button", name="Delete").click()
    expect(item).to_have_count(0)
    assert ui.api_history() == []


def test_a_saved_task_opens_from_history_and_resumes(start_ui, new_page):
    ui = start_ui([write_file("h.txt", "x\n"), complete("Resumed and done.")])
    page = new_page()
    page.goto(ui.url)
    send_task(page, "Write h.txt")
    expect(page.get_by_role("button", name="Save", exact=True)).to_be_visible()
    assert ui.stop() == 0  # Ctrl-C: the server stops cleanly and the waiting task is saved
    assert ui.api_history()[0]["status"] == "cancelled"
    ui2 = _restart(ui, start_ui)
    page.goto(ui2.url)
    page.get_by_role("button", name="History").click()
    page.get_by_role("button", name="Open task: Write h.txt").click()
    expect(page.get_by_text("Write h.txt").first).to_be_visible()
    page.get_by_role("button", name="Resume Task").click()
    page.get_by_role("button", name="Save", exact=True).click()
    expect(page.get_by_text("Resumed and done.").first).to_be_visible()
    assert (ui.workspace / "h.txt").read_text() == "x\n"


def _restart(ui, start_ui):
    return start_ui([write_file("h.txt", "x\n"), complete("Resumed and done.")])
