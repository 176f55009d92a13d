"""One headless Chromium per task, driven by Playwright (SPEC §2 `browser_action`).

Wiring: the task's services own the session. Create one `BrowserSession` per task, put it in
`ToolServices.browser` (where the tool finds it) and register `session.close` in
`TaskServices.closers`, so the browser never outlives its task. The browser is
started lazily by the first `launch` and also closes itself after `idle_timeout` seconds without
an action.

Every action returns a `BrowserState`: a PNG screenshot of the 900×600 viewport and the console
lines logged since the previous action.
"""

from __future__ import annotations

import asyncio
import base64
import logging
import shutil
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from pycline.browser.chromium import CHROMIUM_ARGS, REINSTALL, find_chromium
from pycline.browser.procs import end_processes_with_arg
from pycline.errors import ToolError

if TYPE_CHECKING:
    from playwright.async_api import BrowserContext, ConsoleMessage, Dialog, Page, Playwright

log = logging.getLogger(__name__)

VIEWPORT = (900, 600)
USER_DATA_PREFIX = "pycline-browser-"

_MAX_LOG_LINES = 200
_MAX_LINE_CHARS = 2_000
_CLOSE_TIMEOUT = 10.0

# Resolves once the DOM has had no mutation for `quiet` ms (or after `cap` ms at most), so the
# screenshot shows the page after the click's effects, not halfway through them.
_SETTLE_JS = """([quiet, cap]) => new Promise((resolve) => {
  let done = false;
  let timer = null;
  const finish = () => {
    if (done) return;
    done = true;
    observer.disconnect();
    clearTimeout(timer);
    clearTimeout(limit);
    resolve(true);
  };
  const observer = new MutationObserver(() => {
    clearTimeout(timer);
    timer = setTimeout(finish, quiet);
  });
  observer.observe(document, {subtree: true, childList: true, attributes: true,
                              characterData: true});
  timer = setTimeout(finish, quiet);
  const limit = setTimeout(finish, cap);
})"""


class BrowserUnavailable(ToolError):
    """Playwright or Chromium is missing, or Chromium would not start."""


class BrowserNotOpen(ToolError):
    """An action other than launch while no browser is open."""


@dataclass(frozen=True, slots=True)
class BrowserState:
    """What one action leaves behind for the model."""

    screenshot_b64: str  # PNG, VIEWPORT-sized
    console: tuple[str, ...]  # "[type] text" lines logged since the previous action
    url: str
    mouse: tuple[int, int] | None = None  # where the last click landed


def _playwright_error() -> type[Exception]:
    """Playwright's base error (timeouts included); only called once Playwright is loaded."""
    from playwright.async_api import Error

    return Error


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


class BrowserSession:
    def __init__(
        self,
        *,
        executable_path: str | None = None,
        idle_timeout: float | None = 300.0,
        launch_timeout: float = 30.0,
        navigation_timeout: float = 15.0,
        settle_quiet: float = 0.25,
        settle_max: float = 3.0,
    ) -> None:
        self._configured_path = executable_path
        self._idle_timeout = idle_timeout
        self._launch_timeout = launch_timeout
        self._navigation_timeout = navigation_timeout
        self._settle_quiet = settle_quiet
        self._settle_max = settle_max
        self._lock = asyncio.Lock()
        self._playwright: Playwright | None = None
        self._context: BrowserContext | None = None
        self._page: Page | None = None
        self._user_data_dir: Path | None = None
        self._logs: list[str] = []
        self._dropped_logs = 0
        self._mouse: tuple[int, int] | None = None
        self._generation = 0
        self._idle_task: asyncio.Task[None] | None = None
        self._closed = asyncio.Event()
        self._closed.set()
        self.closed_after_idle = False

    # --- state ----------------------------------------------------------------------------------

    @property
    def is_open(self) -> bool:
        return self._page is not None

    @property
    def user_data_dir(self) -> Path | None:
        """The throw-away profile folder of the running browser (it marks all its processes)."""
        return self._user_data_dir

    async def wait_closed(self) -> None:
        """Return once no browser is running (at once if none was started)."""
        await self._closed.wait()

    # --- actions --------------------------------------------------------------------------------

    async def launch(self, url: str) -> BrowserState:
        """Start the browser if needed and open `url` in its one page."""
        async with self._acting(launching=True) as page:
            try:
                await page.goto(
                    url, wait_until="domcontentloaded", timeout=self._navigation_timeout * 1000
                )
            except _playwright_error() as exc:
                # The error page is still worth a screenshot; the model learns why from the log.
                self._log(f"[error] Could not load {url}: {_first_line(exc)}")
            self._mouse = None
            return await self._snapshot()

    async def click(self, x: int, y: int) -> BrowserState:
        async with self._acting() as page:
            await page.mouse.click(x, y)
            self._mouse = (x, y)
            return await self._snapshot()

    async def type(self, text: str) -> BrowserState:
        async with self._acting() as page:
            await page.keyboard.type(text)
            return await self._snapshot()

    async def scroll(self, direction: Literal["down", "up"]) -> BrowserState:
        """Scroll the page by one viewport height."""
        async with self._acting() as page:
            delta = VIEWPORT[1] if direction == "down" else -VIEWPORT[1]
            await page.evaluate("(dy) => window.scrollBy(0, dy)", delta)
            return await self._snapshot()

    async def close(self) -> None:
        """Close the browser and its driver, leaving no process and no profile folder behind."""
        async with self._lock:
            self._generation += 1
            # Shielded: a task cancelled while closing must still not leave Chromium running.
            await asyncio.shield(self._shutdown())

    # --- internals ------------------------------------------------------------------------------

    def _require_page(self) -> Page:
        if self._page is None:
            if self.closed_after_idle:
                raise BrowserNotOpen(
                    "The browser was closed after being idle. Use action launch to open it again."
                )
            raise BrowserNotOpen("The browser is not open. Start with action launch and a url.")
        return self._page

    @asynccontextmanager
    async def _acting(self, *, launching: bool = False) -> AsyncIterator[Page]:
        """One action at a time; Playwright failures become ToolErrors; idle timer restarted."""
        async with self._lock:
            self._generation += 1
            self._disarm_idle()
            if launching:
                self.closed_after_idle = False
                if self._page is None:
                    await self._start()
            page = self._require_page()
            try:
                yield page
            except _playwright_error() as exc:
                raise ToolError(f"The browser action failed: {_first_line(exc)}") from exc
            finally:
                if self._idle_task is None:
                    self._arm_idle()

    async def _start(self) -> None:
        try:
            from playwright.async_api import async_playwright
        except ImportError as exc:
            raise BrowserUnavailable(f"The browser tool needs Playwright. {REINSTALL}") from exc
        executable = find_chromium(self._configured_path)
        self._user_data_dir = Path(tempfile.mkdtemp(prefix=USER_DATA_PREFIX))
        self._closed.clear()
        try:
            self._playwright = await async_playwright().start()
            context = await self._playwright.chromium.launch_persistent_context(
                str(self._user_data_dir),
                executable_path=executable,
                headless=True,
                args=list(CHROMIUM_ARGS),
                viewport={"width": VIEWPORT[0], "height": VIEWPORT[1]},
                timeout=self._launch_timeout * 1000,
            )
        except BaseException as exc:  # cancelled or failed half-way: end what already started
            await asyncio.shield(self._shutdown())
            if isinstance(exc, _playwright_error()):
                raise BrowserUnavailable(
                    f"Chromium ({executable}) did not start: {_first_line(exc)}"
                ) from exc
            raise
        self._context = context
        context.on("page", self._adopt)
        self._adopt(context.pages[0] if context.pages else await context.new_page())

    def _adopt(self, page: Page) -> None:
        """Follow the newest page, so a link that opens a new tab stays in view."""
        self._page = page
        page.on("console", self._on_console)
        page.on("pageerror", self._on_page_error)
        page.on("dialog", self._on_dialog)

    def _on_console(self, message: ConsoleMessage) -> None:
        self._log(f"[{message.type}] {message.text}")

    def _on_page_error(self, error: Exception) -> None:
        self._log(f"[page error] {_first_line(error)}")

    async def _on_dialog(self, dialog: Dialog) -> None:
        # An unanswered alert/confirm would freeze the page; accept it and tell the model.
        self._log(f"[{dialog.type}] {dialog.message}")
        try:
            await dialog.accept()
        except _playwright_error() as exc:
            log.debug("dialog already gone: %s", exc)

    def _log(self, line: str) -> None:
        if len(self._logs) >= _MAX_LOG_LINES:
            self._dropped_logs += 1
            return
        if len(line) > _MAX_LINE_CHARS:
            line = line[:_MAX_LINE_CHARS] + "…"
        self._logs.append(line)

    def _take_logs(self) -> tuple[str, ...]:
        lines = tuple(self._logs)
        if self._dropped_logs:
            lines += (f"({self._dropped_logs} more console lines were dropped)",)
        self._logs.clear()
        self._dropped_logs = 0
        return lines

    async def _settle(self) -> None:
        """Wait for a navigation the action started, then for the DOM to go quiet."""
        error = _playwright_error()
        for _ in range(3):
            page = self._require_page()
            try:
                await page.wait_for_load_state("load", timeout=self._navigation_timeout * 1000)
            except error as exc:
                self._log(f"[warning] The page did not finish loading: {_first_line(exc)}")
            try:
                await page.evaluate(
                    _SETTLE_JS, [self._settle_quiet * 1000, self._settle_max * 1000]
                )
                return
            except error as exc:  # a navigation replaced the document: wait for the new one
                log.debug("settling interrupted: %s", exc)

    async def _snapshot(self) -> BrowserState:
        await self._settle()
        page = self._require_page()
        try:
            png = await page.screenshot(type="png", timeout=self._navigation_timeout * 1000)
        except _playwright_error() as exc:
            raise ToolError(f"Could not take a screenshot: {_first_line(exc)}") from exc
        return BrowserState(
            screenshot_b64=base64.b64encode(png).decode("ascii"),
            console=self._take_logs(),
            url=page.url,
            mouse=self._mouse,
        )

    def _arm_idle(self) -> None:
        self._disarm_idle()
        if self._idle_timeout is not None and self._page is not None:
            self._idle_task = asyncio.create_task(
                self._close_when_idle(self._idle_timeout, self._generation)
            )

    def _disarm_idle(self) -> None:
        task, self._idle_task = self._idle_task, None
        if task is not None and task is not asyncio.current_task():
            task.cancel()

    async def _close_when_idle(self, delay: float, generation: int) -> None:
        await asyncio.sleep(delay)
        async with self._lock:
            if generation != self._generation or self._page is None:
                return  # an action came in meanwhile
            self.closed_after_idle = True
            await asyncio.shield(self._shutdown())

    async def _shutdown(self) -> None:
        self._disarm_idle()
        context, playwright, user_dir = self._context, self._playwright, self._user_data_dir
        self._context = self._page = self._playwright = None
        self._user_data_dir = None
        self._mouse = None
        error = _playwright_error() if playwright is not None else OSError
        if context is not None:
            try:
                await asyncio.wait_for(context.close(), _CLOSE_TIMEOUT)
            except (error, TimeoutError) as exc:
                log.warning("closing the browser failed: %s", exc)
        if playwright is not None:
            try:
                await asyncio.wait_for(playwright.stop(), _CLOSE_TIMEOUT)
            except (error, TimeoutError) as exc:
                log.warning("stopping the Playwright driver failed: %s", exc)
        if user_dir is not None:
            # Helpers that outlived the main process (or a close that timed out) end here.
            killed = await end_processes_with_arg(str(user_dir))
            if killed:
                log.debug("killed %d leftover browser processes", len(killed))
            await asyncio.to_thread(shutil.rmtree, user_dir, ignore_errors=True)
        self._closed.set()
