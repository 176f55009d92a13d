"""Fixtures for the browser and web_fetch tests: a loopback web server, a real Chromium, and a
check after every test that no browser (or Playwright driver) process was left behind."""

from __future__ import annotations

import tempfile
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from pycline.browser.chromium import ChromiumNotFound, find_chromium
from pycline.browser.session import BrowserSession
from tests.browser.procs import descendants, processes_mentioning

APT_LINE = "apt-get update && apt-get install -y chromium"


@dataclass
class Site:
    """Pages served on 127.0.0.1: path -> (content type, body)."""

    base: str = ""
    pages: dict[str, tuple[str, bytes]] = field(default_factory=dict)
    hits: list[str] = field(default_factory=list)
    stalls: dict[str, threading.Event] = field(default_factory=dict)  # path -> "request arrived"
    release: threading.Event = field(default_factory=threading.Event)

    def stall(self, path: str) -> threading.Event:
        """Requests for `path` hang until the test ends; the event tells that one arrived."""
        self.stalls[path] = threading.Event()
        return self.stalls[path]

    def add(
        self, path: str, body: str | bytes, content_type: str = "text/html; charset=utf-8"
    ) -> str:
        self.pages[path] = (content_type, body.encode() if isinstance(body, str) else body)
        return self.url(path)

    def url(self, path: str) -> str:
        return f"{self.base}{path}"


@contextmanager
def serving() -> Iterator[Site]:
    """A loopback web server for the pages added to the `Site` it yields."""
    served = Site()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            served.hits.append(self.path)
            if self.path in served.stalls:
                served.stalls[self.path].set()
                served.release.wait(timeout=30)
            page = served.pages.get(self.path)
            if page is None:
                self.send_error(404, "Not Found")
                return
            content_type, body = page
            self.send_response(200)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            return None

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    served.base = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield served
    finally:
        served.release.set()
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


@pytest.fixture
def site() -> Iterator[Site]:
    with serving() as served:
        yield served


@pytest.fixture(autouse=True)
def no_leftover_processes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Browser profiles go under this test's tmp_path, so its processes are recognisable; after
    the test none of them, and no child process of ours at all, may still run."""
    browser_tmp = tmp_path / "browser-tmp"
    browser_tmp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(browser_tmp))
    yield browser_tmp
    left = processes_mentioning(str(browser_tmp))
    children = descendants()
    assert not left, f"browser processes left behind: {left}"
    assert not children, f"child processes left behind: {children}"


@pytest.fixture(scope="session")
def chromium() -> str:
    try:
        return find_chromium()
    except ChromiumNotFound as exc:
        pytest.fail(f"These tests need a real Chromium ({APT_LINE}): {exc}")


@pytest.fixture
async def browser(chromium: str) -> AsyncIterator[BrowserSession]:
    session = BrowserSession(executable_path=chromium, idle_timeout=None)
    yield session
    await session.close()


@pytest.fixture
async def make_browser(chromium: str) -> AsyncIterator[Callable[..., BrowserSession]]:
    made: list[BrowserSession] = []

    def make(**options: Any) -> BrowserSession:
        session = BrowserSession(executable_path=chromium, **options)
        made.append(session)
        return session

    yield make
    for session in made:  # a failed test must not leak its browser into the next one
        await session.close()
