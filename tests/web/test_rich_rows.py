"""Rich chat rows: the browser's screenshot inside its row."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.web.conftest import complete, screenshot
from tests.web.test_chat import send_task

REPO = Path(__file__).resolve().parents[2]


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        return None


@pytest.fixture
def site(tmp_path: Path) -> Iterator[str]:
    """A page on 127.0.0.1 for the agent's browser to open."""
    root = tmp_path / "site"
    root.mkdir()
    (root / "index.html").write_text(
        "<!doctype html><body style='background:rgb(0,128,0)'><h1>Hello from the site</h1>",
        encoding="utf-8",
    )
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(_Quiet, directory=str(root)))
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/index.html"
    server.shutdown()
    server.server_close()
    thread.join(timeout=5)


def browser_action(action: str, url: str = "") -> str:
    where = f"\n<url>{url}</url>" if url else ""
    return f"<browser_action>\n<action>{action}</action>{where}\n</browser_action>"


def test_the_browser_screenshot_is_shown_in_its_row(start_ui, new_page, site):
    ui = start_ui([browser_action("launch", site), browser_action("close"), complete("Seen.")])
    page = new_page()
    page.goto(ui.url)
    send_task(page, "Look at the site")
    page.get_by_role("button", name="Approve").click()
    shot = page.get_by_role("img", name="Browser screenshot")
    expect(shot).to_be_visible(timeout=30_000)
    src = shot.get_attribute("src") or ""
    assert src.startswith("data:image/png;base64,")
    assert page.evaluate("(img) => img.naturalWidth", shot.element_handle()) > 100
    expect(page.get_by_text("Seen.").first).to_be_visible(timeout=30_000)
    shot.scroll_into_view_if_needed()
    screenshot(page, "chat-browser")


def test_a_task_reopened_after_a_restart_shows_its_browser_screenshot(start_ui, new_page, site):
    ui = start_ui([browser_action("launch", site), browser_action("close"), complete("Seen.")])
    page = new_page()
    page.goto(ui.url)
    send_task(page, "Look at the site")
    page.get_by_role("button", name="Approve").click()
    expect(page.get_by_text("Seen.").first).to_be_visible(timeout=30_000)
    live = page.get_by_role("img", name="Browser screenshot").get_attribute("src")
    assert ui.stop() == 0
    ui2 = start_ui([complete()])  # the same home: the task comes back from its saved files
    page.goto(ui2.url)
    page.get_by_role("button", name="History").click()
    page.get_by_role("button", name="Open task: Look at the site").click()
    row = page.locator(".row.tool", has_text="launch")
    shot = row.get_by_role("img", name="Browser screenshot")
    expect(shot).to_be_visible()
    assert shot.get_attribute("src") == live
    assert page.evaluate("(img) => img.naturalWidth", shot.element_handle()) > 100


def test_a_selection_in_a_message_is_quoted_into_the_input(start_ui, new_page):
    ui = start_ui([complete("The answer is **forty-two** exactly.")])
    page = new_page()
    page.goto(ui.url)
    send_task(page, "What is the answer?")
    strong = page.locator(".row.completion strong", has_text="forty-two")
    expect(strong).to_be_visible()
    quote = page.get_by_role("button", name="Quote selection")
    expect(quote).to_be_hidden()
    strong.evaluate(
        "(el) => { const r = document.createRange(); r.selectNodeContents(el);"
        " const s = document.getSelection(); s.removeAllRanges(); s.addRange(r); }"
    )
    expect(quote).to_be_visible()
    quote.click()
    expect(page.get_by_role("textbox", name="Message")).to_have_value("> forty-two\n\n")
    expect(quote).to_be_hidden()


def test_an_earlier_message_edited_rewinds_the_task_and_is_sent_instead(start_ui, new_page):
    ui = start_ui([complete("First result."), complete("Second result.")])
    page = new_page()
    page.goto(ui.url)
    send_task(page, "Do it")
    expect(page.get_by_text("First result.").first).to_be_visible()
    send_task(page, "make it blue")
    expect(page.get_by_text("Second result.").first).to_be_visible()
    [record] = ui.api_history()
    assert "make it blue" in ui.api_messages(record["id"])
    message = page.locator(".row.user", has_text="make it blue")
    message.get_by_role("button", name="Edit message").click()
    page.get_by_role("textbox", name="Edited message").fill("make it green")
    screenshot(page, "chat-edit-message")
    page.get_by_role("button", name="Restore Chat").click()
    # The scripted model starts over on the resumed run: its first reply comes again.
    expect(page.get_by_text("Task resumed.")).to_be_visible()
    expect(page.locator(".row.user", has_text="make it green")).to_be_visible()
    expect(page.get_by_role("button", name="Start New Task")).to_be_visible()
    expect(page.get_by_text("make it blue")).to_have_count(0)
    expect(page.get_by_text("Second result.")).to_have_count(0)
    sent = ui.api_messages(record["id"])
    assert "make it green" in sent
    assert "make it blue" not in sent


def mcp_echo(message: str) -> str:
    arguments = json.dumps({"message": message})
    return (
        "<use_mcp_tool>\n<server_name>everything</server_name>\n<tool_name>echo</tool_name>\n"
        f"<arguments>{arguments}</arguments>\n</use_mcp_tool>"
    )


def test_an_mcp_result_is_shown_as_sanitised_markdown_with_a_raw_toggle(
    start_ui, new_page, isolated_home
):
    server = REPO / ".ci" / "node" / "node_modules" / ".bin" / "mcp-server-everything"
    assert server.exists(), f"the reference MCP server is missing: {server} (see .ci/run)"
    settings = isolated_home / "settings" / "cline_mcp_settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    # The tool is set to always allow, so it runs without a question.
    entry = {"command": str(server), "autoApprove": ["echo"]}
    settings.write_text(json.dumps({"mcpServers": {"everything": entry}}))
    message = "\n# Report\n\n- **first** item\n- <img src=x onerror=alert(1)>"
    ui = start_ui([mcp_echo(message), complete("Echoed.")])
    page = new_page()
    page.goto(ui.url)
    send_task(page, "Echo a report")
    result = page.get_by_role("group", name="MCP result")
    expect(result.get_by_role("heading", name="Report")).to_be_visible(timeout=30_000)
    expect(result.locator("strong", has_text="first")).to_be_visible()
    expect(result.locator("li", has_text="<img src=x onerror=alert(1)>")).to_be_visible()
    assert result.locator("img").count() == 0
    raw = result.get_by_label("Raw result", exact=True)
    expect(raw).to_be_hidden()
    screenshot(page, "chat-mcp-markdown")
    toggle = result.get_by_role("button", name="Show raw result")
    toggle.click()
    expect(toggle).to_have_attribute("aria-pressed", "true")
    expect(raw).to_contain_text("- **first** item")
    expect(result.get_by_role("heading", name="Report")).to_be_hidden()
    toggle.click()
    expect(result.get_by_role("heading", name="Report")).to_be_visible()
