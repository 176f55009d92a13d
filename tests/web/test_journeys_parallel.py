"""Web journeys of Parallel Tasks and the tab bar: the page's own live tasks are listed as `pycline
tasks` lists them, a background write that changes nothing asks nothing, and the tab of the task
on screen is always in view."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.web.conftest import complete, followup, write_file
from tests.web.test_chat import send_task
from tests.web.test_parallel import runtime  # noqa: F401  (a fixture)


def test_parallel_tasks_lists_the_pages_own_live_task_and_shows_its_tab(
    start_ui,
    new_page,
    runtime,  # noqa: F811
):
    ui = start_ui([followup("Which file?", "a.txt", "b.txt"), complete("Picked.")], env=runtime)
    page = new_page()
    page.goto(ui.url)
    send_task(page, "Ask me which file")
    expect(page.get_by_text("Cline has a question:")).to_be_visible()
    page.get_by_role("button", name="Parallel Tasks").click()
    view = page.get_by_role("region", name="Parallel Tasks")
    item = view.get_by_role("listitem", name="Ask me which file")
    expect(item.get_by_text("waiting", exact=True)).to_be_visible(timeout=30_000)
    expect(item.get_by_text("this page")).to_be_visible()
    item.get_by_role("button", name="Show", exact=False).click()
    expect(page.get_by_role("tab", name="Ask me which file — waiting")).to_have_attribute(
        "aria-selected", "true"
    )
    page.get_by_role("group", name="Actions").get_by_role("button", name="b.txt").click()
    expect(page.get_by_text("Picked.").first).to_be_visible()


def test_a_background_write_that_changes_nothing_asks_nothing(start_ui, new_page, runtime):  # noqa: F811
    ui = start_ui([write_file("same.txt", "kept\n"), complete("Nothing to do.")], env=runtime)
    (ui.workspace / "same.txt").write_text("kept\n", encoding="utf-8")
    page = new_page()
    page.goto(ui.url)
    page.get_by_role("button", name="Parallel Tasks").click()
    view = page.get_by_role("region", name="Parallel Tasks")
    view.get_by_role("textbox", name="Background task").fill("Write the same file")
    view.get_by_role("button", name="Start in background").click()
    item = view.get_by_role("listitem", name="Write the same file")
    expect(item.get_by_text("completed", exact=True)).to_be_visible(timeout=60_000)
    expect(item.get_by_role("button", name="Save")).to_have_count(0)
    assert (ui.workspace / "same.txt").read_text(encoding="utf-8") == "kept\n"


def test_the_tab_of_the_task_on_screen_is_scrolled_into_view(start_ui, new_page):
    ui = start_ui([complete("Done.")])
    page = new_page()
    page.set_viewport_size({"width": 480, "height": 700})
    page.goto(ui.url)
    names = [f"Task number {n} with a fairly long title" for n in range(1, 6)]
    for name in names:
        page.get_by_role("button", name="New Task", exact=True).click()
        send_task(page, name)
        expect(page.get_by_role("tab", name=f"{name[:40]} — completed")).to_be_visible()
    bar = page.get_by_role("tablist", name="Tasks")

    def in_view(name: str) -> bool:
        tab = page.get_by_role("tab", name=f"{name[:40]} — completed").bounding_box()
        box = bar.bounding_box()
        assert tab is not None and box is not None
        return tab["x"] >= box["x"] - 1 and tab["x"] + tab["width"] <= box["x"] + box["width"] + 1

    page.wait_for_function(SELECTED_IN_VIEW)
    assert in_view(names[-1]) and not in_view(names[0])  # the bar overflows
    page.get_by_role("button", name="History").click()
    page.get_by_role("button", name=f"Open task: {names[0]}").click()
    expect(page.get_by_role("tab", name=f"{names[0][:40]} — completed")).to_have_attribute(
        "aria-selected", "true"
    )
    page.wait_for_function(SELECTED_IN_VIEW)
    assert in_view(names[0]) and not in_view(names[-1])


# The selected tab lies within the tab bar's visible width (the bar scrolls sideways).
SELECTED_IN_VIEW = """() => {
  const t = document.querySelector('[role="tab"][aria-selected="true"]');
  if (!t) return false;
  const b = t.closest('[role="tablist"]').getBoundingClientRect();
  const r = t.getBoundingClientRect();
  return r.left >= b.left - 1 && r.right <= b.right + 1;
}"""
