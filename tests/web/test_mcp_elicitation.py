"""A server's form (elicitation) answered in the web page: shown after the tool's approval with
its fields and options, filled in the message box; the answer reaches the server (the real
tests/mcp/servers/asking.py over stdio) and its result the model."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import expect

from tests.mcp.test_elicitation_front_ends import DONE, ORDER, asking_server
from tests.web.test_chat import send_task


def test_the_form_is_filled_in_on_the_web_page(start_ui, new_page, isolated_home: Path) -> None:
    asking_server(isolated_home)
    ui = start_ui([ORDER, DONE])
    page = new_page()
    page.goto(ui.url)
    send_task(page, "Order an ice cream")
    page.get_by_role("button", name="Approve", exact=True).click()
    log = page.get_by_role("log", name="Messages")
    expect(log.get_by_text("Which ice cream would you like?").first).to_be_visible()
    expect(page.get_by_role("button", name="Use the defaults")).to_be_visible()
    page.get_by_role("textbox", name="Message").fill("flavour: mint")
    page.get_by_role("textbox", name="Message").press("Enter")
    expect(log.get_by_text("Ordered.").first).to_be_visible()
    (record,) = ui.api_history()
    assert "accepted: 2 x mint" in ui.api_messages(record["id"])
