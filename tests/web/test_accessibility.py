"""Every control on every screen has an accessible name (screen readers, and the tests, find
controls by role and name)."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import expect

from tests.web.conftest import write_file
from tests.web.test_chat import send_task

# Visible buttons, inputs, selects, text areas and ARIA-role controls without a name.
UNNAMED = """() => [...document.querySelectorAll(
    'button, input, select, textarea, [role=option], [role=radio], [role=tab], [role=menuitem]')]
  .filter((el) => el.offsetParent !== null && el.type !== 'hidden')
  .filter((el) => {
    const labelled = (el.getAttribute('aria-label') || '').trim()
      || (el.getAttribute('aria-labelledby') || '').trim()
      || [...(el.labels || [])].some((l) => l.textContent.trim());
    const own = ['BUTTON'].includes(el.tagName) || el.getAttribute('role')
      ? el.textContent.trim() : '';
    return !labelled && !own;
  })
  .map((el) => el.outerHTML.slice(0, 120))"""


def unnamed(page: Any) -> list[str]:
    return list(page.evaluate(UNNAMED))


def test_every_control_on_every_screen_has_an_accessible_name(start_ui, new_page):
    ui = start_ui([write_file("a.txt", "1\n")])
    page = new_page()
    page.goto(ui.url)
    expect(page.get_by_role("textbox", name="Message")).to_be_visible()
    assert unnamed(page) == []
    send_task(page, "Write a.txt")
    expect(page.get_by_role("button", name="Save", exact=True)).to_be_visible()
    assert unnamed(page) == []
    page.get_by_role("button", name="Model", exact=True).click()
    expect(page.get_by_role("dialog", name="Model for this task")).to_be_visible()
    assert unnamed(page) == []
    page.get_by_role("dialog").get_by_role("button", name="Close").click()
    for screen in ("History", "Settings", "MCP Servers", "Parallel Tasks"):
        page.get_by_role("button", name=screen, exact=True).click()
        expect(page.get_by_role("region", name=screen)).to_be_visible()
        expect(page.get_by_role("heading", name=screen, exact=True)).to_be_visible()
        assert unnamed(page) == [], screen
    # The check itself notices a control without a name.
    page.evaluate("document.querySelector('main').append(document.createElement('input'))")
    assert len(unnamed(page)) == 1
