"""BrowserSession against a real Chromium and real pages on a loopback server."""

from __future__ import annotations

import asyncio
import base64
import socket
from collections.abc import Callable

import pytest

from pycline.browser.chromium import ChromiumNotFound, find_chromium
from pycline.browser.session import BrowserNotOpen, BrowserSession, BrowserUnavailable
from tests.browser import pages, png
from tests.browser.conftest import Site

WHITE = (255, 255, 255)
GREEN = (0, 128, 0)


def closed_port() -> int:
    """A loopback port nobody listens on (it was just free)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


def screenshot(b64: str, rows: int = 20) -> png.Image:
    return png.decode(base64.b64decode(b64), max_rows=rows)


async def test_launch_and_click_show_the_page_and_the_console_log_since_the_last_action(
    browser: BrowserSession, site: Site
) -> None:
    state = await browser.launch(site.add("/", pages.APP))
    image = screenshot(state.screenshot_b64)
    assert (image.width, image.height) == (900, 600)
    assert image.pixel(5, 5) == WHITE
    assert "[log] page ready" in state.console
    assert state.url == site.url("/")
    assert browser.is_open

    missed = await browser.click(600, 500)  # nothing there
    assert missed.console == ()
    assert screenshot(missed.screenshot_b64).pixel(5, 5) == WHITE

    clicked = await browser.click(*pages.BUTTON)
    assert clicked.console == ("[log] button clicked",)
    assert clicked.mouse == pages.BUTTON
    assert screenshot(clicked.screenshot_b64).pixel(5, 5) == GREEN


async def test_typing_goes_into_the_focused_input_and_scrolling_moves_one_viewport(
    browser: BrowserSession, site: Site
) -> None:
    await browser.launch(site.add("/", pages.APP))
    await browser.click(*pages.INPUT)
    typed = await browser.type("hello")
    assert typed.console[-1] == "[log] typed:hello"
    assert len(typed.console) == 5  # one input event per character
    down = await browser.scroll("down")
    assert down.console[-1] == "[log] scrolled to 600"
    up = await browser.scroll("up")
    assert up.console[-1] == "[log] scrolled to 0"


async def test_a_click_that_navigates_returns_the_loaded_new_page(
    browser: BrowserSession, site: Site
) -> None:
    site.add("/second", pages.SECOND)
    await browser.launch(site.add("/", pages.LINKS))
    state = await browser.click(*pages.LINK)
    assert state.url == site.url("/second")
    assert "[warning] second page loaded" in state.console


async def test_alerts_are_accepted_and_page_errors_logged(
    browser: BrowserSession, site: Site
) -> None:
    state = await browser.launch(site.add("/", pages.ERRORS))
    assert state.console[:2] == ("[alert] hello from alert", "[error] after alert")
    assert any(line.startswith("[page error]") and "boom" in line for line in state.console)


async def test_launch_of_an_unreachable_url_still_answers_with_the_error_in_the_log(
    browser: BrowserSession, site: Site
) -> None:
    state = await browser.launch(f"http://127.0.0.1:{closed_port()}/")
    assert any(
        "Could not load" in line and "ERR_CONNECTION_REFUSED" in line for line in state.console
    ), state.console
    assert screenshot(state.screenshot_b64).width == 900


async def test_launch_again_reuses_the_browser_and_close_ends_every_process(
    browser: BrowserSession, site: Site
) -> None:
    await browser.launch(site.add("/", pages.APP))
    profile = browser.user_data_dir
    assert profile is not None and profile.is_dir()
    state = await browser.launch(site.add("/second", pages.SECOND))
    assert state.url == site.url("/second")
    assert browser.user_data_dir == profile
    await browser.close()
    assert not browser.is_open
    assert not profile.exists()
    await asyncio.wait_for(browser.wait_closed(), 1)  # already closed: returns at once
    await browser.close()  # closing twice is harmless
    # (the autouse fixture then checks that no browser process is left)


async def test_a_task_cancelled_mid_launch_leaves_nothing_behind_after_close(
    browser: BrowserSession, site: Site
) -> None:
    arrived = site.stall("/slow")
    launching = asyncio.create_task(browser.launch(site.url("/slow")))
    assert await asyncio.to_thread(arrived.wait, 30), "the browser never requested the page"
    launching.cancel()
    with pytest.raises(asyncio.CancelledError):
        await launching
    await asyncio.wait_for(browser.close(), 30)  # what the task's closer does
    assert not browser.is_open


async def test_actions_need_a_launched_browser(browser: BrowserSession) -> None:
    with pytest.raises(BrowserNotOpen, match="launch"):
        await browser.click(10, 10)


async def test_an_idle_browser_closes_itself(
    make_browser: Callable[..., BrowserSession], site: Site
) -> None:
    session = make_browser(idle_timeout=0.3)
    await session.launch(site.add("/", pages.APP))
    await session.click(*pages.BUTTON)  # each action restarts the idle timer
    profile = session.user_data_dir
    await asyncio.wait_for(session.wait_closed(), 15)
    assert not session.is_open and session.closed_after_idle
    assert profile is not None and not profile.exists()
    with pytest.raises(BrowserNotOpen, match="idle"):
        await session.scroll("down")


async def test_a_missing_chromium_is_a_clear_error(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    session = BrowserSession(executable_path="/nonexistent/chromium")
    with pytest.raises(ChromiumNotFound, match="/nonexistent/chromium"):
        await session.launch("about:blank")
    assert not session.is_open


async def test_a_chromium_that_will_not_start_is_reported(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    fake = tmp_path_factory.mktemp("fake") / "chromium"
    fake.write_text("#!/bin/sh\necho 'not a browser' >&2\nexit 3\n", encoding="utf-8")
    fake.chmod(0o755)
    session = BrowserSession(executable_path=str(fake), launch_timeout=20)
    with pytest.raises(BrowserUnavailable, match="did not start"):
        await session.launch("about:blank")
    assert not session.is_open and session.user_data_dir is None


def test_find_chromium_prefers_the_setting_then_the_environment(
    chromium: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYCLINE_CHROMIUM", "/nowhere/chrome")
    with pytest.raises(ChromiumNotFound, match="PYCLINE_CHROMIUM"):
        find_chromium()
    assert find_chromium(chromium) == chromium  # the setting wins over the environment
    monkeypatch.setenv("PYCLINE_CHROMIUM", chromium)
    assert find_chromium() == chromium
