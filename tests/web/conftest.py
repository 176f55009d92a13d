"""`pycline ui --no-open` as a real subprocess (scripted provider), and a real Chromium driving it."""

from __future__ import annotations

import json
import os
import selectors
import signal
import subprocess
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from pycline.browser.chromium import CHROMIUM_ARGS, ChromiumNotFound, find_chromium
from tests.web.ui_process import ui_argv

SCREENSHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
# What a page waits for comes from a real server starting real tasks (git checkpoints, the
# sandbox); on a loaded machine that takes seconds, so expectations wait as long as actions do.
EXPECT_TIMEOUT = 15_000
START_TIMEOUT = 30.0
COMPLETE = "<attempt_completion>\n<result>{}</result>\n</attempt_completion>"


def write_file(path: str, text: str, prose: str = "I will write the file.") -> str:
    return f"{prose}\n\n<write_to_file>\n<path>{path}</path>\n<content>\n{text}</content>\n</write_to_file>"


def followup(question: str, *options: str) -> str:
    opts = json.dumps(list(options))
    return (
        f"<ask_followup_question>\n<question>{question}</question>\n<options>{opts}</options>\n"
        "</ask_followup_question>"
    )


def complete(result: str = "Done.") -> str:
    return COMPLETE.format(result)


@dataclass
class UiServer:
    proc: subprocess.Popen[str]
    printed: str  # the first login link, with its one-time token
    home: Path
    workspace: Path
    _printed_used: bool = False

    @property
    def url(self) -> str:
        """A login link nobody has used yet (each works once): the printed one, then a new one
        asked for as a user does, with Enter where `pycline ui` runs."""
        if not self._printed_used:
            self._printed_used = True
            return self.printed
        assert self.proc.stdin is not None
        self.proc.stdin.write("\n")
        self.proc.stdin.flush()
        line = _first_line(self.proc, START_TIMEOUT)
        assert line.startswith("pycline ui: http://127.0.0.1:"), line
        return line.removeprefix("pycline ui: ")

    @property
    def base(self) -> str:
        return self.printed.split("/#", 1)[0]

    @property
    def port(self) -> int:
        return int(self.base.rsplit(":", 1)[1])

    def api_history(self) -> list[dict[str, Any]]:
        from pycline.storage.task_store import TaskStore

        return [r.to_json() for r in TaskStore(self.home).index.list()]

    def api_messages(self, task_id: str) -> str:
        """The task's saved conversation, as JSON text (what the model was sent)."""
        from pycline.storage.task_store import TaskStore

        messages = TaskStore(self.home).open(task_id).load_api_history()
        return json.dumps([m.to_json() for m in messages])

    def stop(self) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
                raise
        return self.proc.returncode


def _first_line(proc: subprocess.Popen[str], timeout: float) -> str:
    assert proc.stdout is not None
    selector = selectors.DefaultSelector()
    selector.register(proc.stdout, selectors.EVENT_READ)
    ready = selector.select(timeout)
    selector.close()
    if not ready:
        proc.kill()
        raise AssertionError(f"pycline ui printed nothing within {timeout}s")
    return proc.stdout.readline().strip()


def launcher(
    home: Path, workspace: Path, tmp_path: Path
) -> tuple[Callable[..., UiServer], list[UiServer]]:
    started: list[UiServer] = []
    subprocess.run(["git", "init", "-q"], cwd=workspace, check=True)

    def start(replies: list[Any], *extra: str, env: dict[str, str] | None = None) -> UiServer:
        script = tmp_path / f"script-{len(started)}.json"
        script.write_text(json.dumps(replies), encoding="utf-8")
        proc = subprocess.Popen(
            ui_argv(workspace, script, *extra),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            stdin=subprocess.PIPE,  # a line asks for a new login link
            text=True,
            env={**os.environ, "NO_COLOR": "1", "PYCLINE_HOME": str(home), **(env or {})},
        )
        line = _first_line(proc, START_TIMEOUT)
        assert line.startswith("pycline ui: http://127.0.0.1:"), line
        server = UiServer(proc, line.removeprefix("pycline ui: "), home, workspace)
        started.append(server)
        return server

    return start, started


@pytest.fixture
def start_ui(
    isolated_home: Path, workspace: Path, tmp_path: Path
) -> Iterator[Callable[..., UiServer]]:
    start, started = launcher(isolated_home, workspace, tmp_path)
    yield start
    for server in started:
        server.stop()


@pytest.fixture(scope="module")
def shared_ui(tmp_path_factory: pytest.TempPathFactory) -> Iterator[UiServer]:
    """One server for tests that only make requests (no task state to keep apart)."""
    root = tmp_path_factory.mktemp("shared-ui")
    (root / "home").mkdir()
    (root / "project").mkdir()
    start, started = launcher(root / "home", root / "project", root)
    yield start([complete()])
    for server in started:
        server.stop()


@pytest.fixture(scope="session")
def chromium_path() -> str:
    try:
        return find_chromium()
    except ChromiumNotFound as exc:
        pytest.fail(f"The web UI tests need a real Chromium (apt-get install chromium): {exc}")


@pytest.fixture(scope="module")
def browser(chromium_path: str) -> Iterator[Any]:
    from playwright.sync_api import expect

    expect.set_options(timeout=EXPECT_TIMEOUT)
    # Per module, not per session: Playwright's sync API keeps an event loop running in this
    # thread while it is open, and the asyncio tests that run after these need it gone.
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium_path, args=list(CHROMIUM_ARGS))
        yield browser
        browser.close()


@pytest.fixture
def new_page(browser: Any) -> Iterator[Callable[[], Any]]:
    contexts: list[Any] = []

    def make() -> Any:
        context = browser.new_context(viewport={"width": 1100, "height": 800})
        context.set_default_timeout(EXPECT_TIMEOUT)
        contexts.append(context)
        return context.new_page()

    yield make
    for context in contexts:
        context.close()


def screenshot(page: Any, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"))
