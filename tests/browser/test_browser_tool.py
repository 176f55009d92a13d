"""browser_action: parameters, approval, what reaches the model; and a scripted task end to end."""

from __future__ import annotations

import base64
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from pycline.browser.session import BrowserSession
from pycline.core.approval import AutoApprove
from pycline.core.services import TaskServices
from pycline.core.task import TaskSettings
from pycline.errors import ToolError
from pycline.events import APPROVE, Answer, ApprovalQuestion, Event, Question
from pycline.messages import ImageContent, TextContent
from pycline.providers.base import ModelInfo
from pycline.providers.scripted import ScriptedProvider, ScriptedReply
from pycline.testing import task_for
from pycline.tools.base import Approval, ToolCall
from pycline.tools.browser import (
    BrowserActionTool,
    browser_available,
    normalize_url,
    parse_coordinate,
)
from pycline.tools.interaction import AttemptCompletionTool
from pycline.tools.services import ToolServices
from tests.browser import pages, png
from tests.browser.conftest import Site
from tests.browser.context import Approvals, tool_context

TOOL = BrowserActionTool()


def call(action: str, **params: str) -> ToolCall:
    return ToolCall("browser_action", {"action": action, **params})


@pytest.fixture
async def session(chromium: str) -> AsyncIterator[BrowserSession]:
    s = BrowserSession(executable_path=chromium, idle_timeout=None)
    yield s
    await s.close()


async def test_launch_asks_browser_approval_and_returns_screenshot_and_log(
    session: BrowserSession, site: Site, workspace: Path
) -> None:
    approvals = Approvals()
    ctx = tool_context(workspace, approvals, browser=session)
    url = site.add("/", pages.APP)
    result = await TOOL.run(call("launch", url=url), ctx)
    [(question, category, outside)] = approvals.asked
    assert (question.tool, question.preview, category, outside) == (
        "browser_action",
        url,
        "browser",
        False,
    )
    assert "[log] page ready" in result.text and f"Current URL: {url}" in result.text
    [image] = result.images
    assert image.media_type == "image/png"
    assert png.decode(base64.b64decode(image.data_b64), max_rows=1).width == 900

    clicked = await TOOL.run(call("click", coordinate=f"{pages.BUTTON[0]},{pages.BUTTON[1]}"), ctx)
    assert "[log] button clicked" in clicked.text and "mouse at 200,130" in clicked.text
    assert len(approvals.asked) == 1  # later actions act on the approved page

    text_only = tool_context(workspace, approvals, images=False, browser=session)
    scrolled = await TOOL.run(call("scroll_down"), text_only)
    assert scrolled.images == () and "screenshot is not shown" in scrolled.text

    closed = await TOOL.run(call("close"), ctx)
    assert "closed" in closed.text and not closed.images
    assert not session.is_open


async def test_denied_launch_starts_no_browser(session: BrowserSession, workspace: Path) -> None:
    approvals = Approvals(Approval(False, feedback="not now"))
    ctx = tool_context(workspace, approvals, browser=session)
    result = await TOOL.run(call("launch", url="http://127.0.0.1:1/"), ctx)
    assert result.denied and "not now" in result.text
    assert not session.is_open


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"action": "hover"}, "Unknown browser action"),
        ({"action": "launch"}, "'url'"),
        ({"action": "click"}, "'coordinate'"),
        ({"action": "click", "coordinate": "middle"}, "Invalid coordinate"),
        ({"action": "click", "coordinate": "900,10"}, "outside the 900x600 viewport"),
        ({"action": "type"}, "'text'"),
        ({"action": "scroll_down"}, "not open"),
    ],
)
async def test_bad_calls_are_tool_errors(
    session: BrowserSession, workspace: Path, params: dict[str, str], message: str
) -> None:
    ctx = tool_context(workspace, Approvals(), browser=session)
    with pytest.raises(ToolError, match=message):
        await TOOL.run(ToolCall("browser_action", params), ctx)
    assert not session.is_open


async def test_without_a_session_the_tool_says_the_browser_is_unavailable(workspace: Path) -> None:
    with pytest.raises(ToolError, match="No browser"):
        await TOOL.run(call("launch", url="http://x/"), tool_context(workspace, Approvals()))


async def test_close_without_a_browser_is_not_an_error(
    session: BrowserSession, workspace: Path
) -> None:
    ctx = tool_context(workspace, Approvals(), browser=session)
    assert "not open" in (await TOOL.run(call("close"), ctx)).text


@pytest.mark.parametrize(
    ("raw", "expected"),
    [("450,300", (450, 300)), (" 10 , 20 ", (10, 20)), ("899.4,599", (899, 599)), ("0,0", (0, 0))],
)
def test_parse_coordinate(raw: str, expected: tuple[int, int]) -> None:
    assert parse_coordinate(raw) == expected


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("localhost:3000", "http://localhost:3000"),
        ("example.com/a", "http://example.com/a"),
        ("https://example.com", "https://example.com"),
        ("file:///tmp/index.html", "file:///tmp/index.html"),
        ("about:blank", "about:blank"),
    ],
)
def test_normalize_url(raw: str, expected: str) -> None:
    assert normalize_url(raw) == expected


def test_browser_available_explains_how_to_enable(chromium: str) -> None:
    assert browser_available(executable_path=chromium) is None
    reason = browser_available(executable_path="/nonexistent/chromium")
    assert reason is not None and "/nonexistent/chromium" in reason


def test_summary_names_the_action() -> None:
    assert TOOL.summary(call("click", coordinate="1,2")) == "browser_action for 'click 1,2'"
    assert TOOL.summary(call("close")) == "browser_action for 'close'"


# --- a scripted task drives the real browser ---------------------------------------------------


@dataclass
class YesHost:
    events: list[Event] = field(default_factory=list)
    questions: list[Question] = field(default_factory=list)

    def say(self, event: Event) -> None:
        self.events.append(event)

    async def ask(self, question: Question) -> Answer:
        self.questions.append(question)
        return Answer(APPROVE.id)


def browser_call(action: str, **params: str) -> str:
    inner = "".join(f"<{k}>{v}</{k}>\n" for k, v in {"action": action, **params}.items())
    return f"Using the browser.\n<browser_action>\n{inner}</browser_action>"


async def run_task(
    chromium: str, home: Path, workspace: Path, replies: list[str]
) -> tuple[ScriptedProvider, YesHost, BrowserSession]:
    provider = ScriptedProvider(
        [ScriptedReply(r) for r in replies],
        model_info=ModelInfo(id="scripted-vision", context_window=200_000, supports_images=True),
    )
    # How the wiring sets it up: one session per task, closed with the task.
    session = BrowserSession(executable_path=chromium)
    services = TaskServices(tools=ToolServices(browser=session), closers=[session.close])
    host = YesHost()
    task = task_for(
        home,
        workspace,
        provider,
        host,
        tools=[BrowserActionTool(), AttemptCompletionTool()],
        settings=TaskSettings(auto_approve=AutoApprove()),
        task_text="click",
        services=services,
        system_prompt="test",
    )
    outcome = await task.start("Click the button")
    assert outcome.completed
    return provider, host, session


COMPLETE = "<attempt_completion>\n<result>Clicked.</result>\n</attempt_completion>"


async def test_a_scripted_task_clicks_a_button_and_the_model_sees_screenshot_and_log(
    chromium: str, site: Site, workspace: Path, isolated_home: Path
) -> None:
    url = site.add("/", pages.APP)
    replies = [
        browser_call("launch", url=url),
        browser_call("click", coordinate="200,130"),
        browser_call("close"),
        COMPLETE,
    ]
    provider, host, session = await run_task(chromium, isolated_home, workspace, replies)
    assert any(
        isinstance(q, ApprovalQuestion) and q.tool == "browser_action" for q in host.questions
    )
    after_click = provider.requests[2].messages[-1]  # the user turn carrying the click's result
    texts = [c.text for c in after_click.content if isinstance(c, TextContent)]
    images = [c for c in after_click.content if isinstance(c, ImageContent)]
    assert any("[log] button clicked" in t for t in texts)
    [shot] = images
    image = png.decode(base64.b64decode(shot.data_b64), max_rows=10)
    assert (image.width, image.height) == (900, 600)
    assert image.pixel(5, 5) == (0, 128, 0)  # the page after the click
    assert not session.is_open


async def test_a_browser_the_model_left_open_is_closed_with_the_task(
    chromium: str, site: Site, workspace: Path, isolated_home: Path
) -> None:
    replies = [browser_call("launch", url=site.add("/", pages.APP)), COMPLETE]
    _, _, session = await run_task(chromium, isolated_home, workspace, replies)
    assert not session.is_open  # the no-leftover-process check runs after this test too
