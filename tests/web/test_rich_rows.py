"""Rich chat rows: the browser's screenshot inside its row."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.web.conftest import complete, screenshot
from tests.web.test_chat import send_task


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
