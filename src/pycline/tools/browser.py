"""`browser_action`: drive the task's headless browser (SPEC §2).

The browser is the task's `BrowserSession` (`ToolServices.browser`; see
`pycline.browser.session` for the wiring). Only `launch` asks for approval (category "browser"):
the later actions act on the page the user already agreed to open, as in Cline.
"""

from __future__ import annotations

import importlib.util
import re

from pycline.browser.chromium import REINSTALL, ChromiumNotFound, find_chromium
from pycline.browser.session import VIEWPORT, BrowserSession, BrowserState
from pycline.errors import ToolError
from pycline.events import ApprovalQuestion
from pycline.messages import ImageContent
from pycline.prompts import responses
from pycline.tools.base import (
    ParamSpec,
    ToolCall,
    ToolContext,
    ToolFacts,
    ToolResult,
    ToolSpec,
    describe,
)

ACTIONS = ("launch", "click", "type", "scroll_down", "scroll_up", "close")

_W, _H = VIEWPORT

BROWSER_SPEC = ToolSpec(
    name="browser_action",
    facts=ToolFacts(
        effect="browser",
        title="Cline wants to use the browser:",
        done_title="Cline used the browser:",
        label="Browser: {action} {url}",
        kind="fetch",
        checkpointed=True,
    ),
    description=(
        f"Drive a headless browser ({_W}x{_H}) to view and test a web page, e.g. an app you "
        "built. Each action but close returns a screenshot and the console log. Start with "
        "launch, end with close (launch again opens another URL); while it is open use no other "
        "tool. Click the centre of an element seen in the latest screenshot."
    ),
    params=(
        ParamSpec(
            "action",
            "launch (url), click (coordinate), type (text), scroll_down, scroll_up or close.",
        ),
        ParamSpec(
            "url",
            "For launch, e.g. http://localhost:3000 or file:///path/index.html.",
            required=False,
        ),
        ParamSpec(
            "coordinate",
            f'For click: "x,y" in the {_W}x{_H} viewport.',
            required=False,
        ),
        ParamSpec("text", "For type.", required=False),
    ),
    example=(
        "<browser_action>\n<action>launch</action>\n<url>http://localhost:3000</url>\n"
        "</browser_action>"
    ),
)

_COORDINATE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*,\s*(\d+(?:\.\d+)?)\s*$")
_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def browser_available(*, executable_path: str | None = None) -> str | None:
    """None when the browser tool can run here; otherwise one line saying why and how to fix it."""
    if importlib.util.find_spec("playwright") is None:
        return f"The browser tool is off: Playwright is missing from this install. {REINSTALL}"
    try:
        find_chromium(executable_path)
    except ChromiumNotFound as exc:
        return f"The browser tool is off: {exc} (`pycline doctor` says how to get one)."
    return None


def parse_coordinate(raw: str) -> tuple[int, int]:
    match = _COORDINATE.match(raw)
    if match is None:
        raise ToolError(f'Invalid coordinate {raw!r}: expected "x,y", e.g. "450,300".')
    x, y = round(float(match[1])), round(float(match[2]))
    if x >= _W or y >= _H:
        raise ToolError(
            f"Coordinate {x},{y} is outside the {_W}x{_H} viewport; "
            f"x must be below {_W} and y below {_H}."
        )
    return x, y


def normalize_url(raw: str) -> str:
    url = raw.strip()
    if any(c.isspace() for c in url):
        raise ToolError(f"Invalid URL {raw!r}: it contains spaces.")
    # `localhost:3000` parses as scheme "localhost"; only a real scheme ends with "//" or is known.
    if _SCHEME.match(url) and (
        "://" in url or url.split(":", 1)[0].lower() in {"about", "data", "file"}
    ):
        return url
    return f"http://{url}"


def session_of(ctx: ToolContext) -> BrowserSession:
    session = ctx.services.browser
    if session is None:
        raise ToolError(browser_available() or "No browser is available in this task.")
    return session


def on_loopback(url: str) -> bool:
    """`url` is a page served from this machine's loopback address."""
    import ipaddress
    from urllib.parse import urlsplit

    try:
        host = urlsplit(url).hostname or ""
        return host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:  # not a URL, or a host name other than localhost
        return False


class BrowserActionTool:
    spec = BROWSER_SPEC

    def summary(self, call: ToolCall) -> str:
        action = call.get("action") or ""
        detail = {
            "launch": call.get("url"),
            "click": call.get("coordinate"),
            "type": call.get("text"),
        }.get(action)
        return describe(self.spec.name, f"{action} {detail}" if detail else action or None)

    async def run(self, call: ToolCall, ctx: ToolContext) -> ToolResult:
        action = call.require("action").strip()
        if action not in ACTIONS:
            raise ToolError(f"Unknown browser action {action!r}; use one of: {', '.join(ACTIONS)}.")
        session = session_of(ctx)
        feedback = ""
        match action:
            case "launch":
                url = normalize_url(call.require("url"))
                if not (ctx.auto_sandboxed and on_loopback(url)):  # auto mode: local pages
                    approval = await ctx.approve(
                        ApprovalQuestion(self.spec.name, self.summary(call), preview=url),
                        "browser",
                        outside_workspace=False,
                    )
                    if not approval.approved:
                        return ToolResult(
                            responses.with_feedback(responses.DENIED, approval.feedback),
                            denied=True,
                        )
                    feedback = approval.feedback
                state = await session.launch(url)
            case "click":
                x, y = parse_coordinate(call.require("coordinate"))
                state = await session.click(x, y)
            case "type":
                text = call.params.get("text")
                if not text:
                    raise ToolError("Missing value for required parameter 'text' of action type.")
                state = await session.type(text)
            case "scroll_down" | "scroll_up":
                state = await session.scroll("down" if action == "scroll_down" else "up")
            case _:  # "close"
                was_open = session.is_open
                await session.close()
                return ToolResult(
                    "The browser has been closed. You may now use other tools."
                    if was_open
                    else "The browser was not open. You may use other tools."
                )
        return self._result(action, state, ctx.supports_images, feedback)

    def _result(
        self, action: str, state: BrowserState, with_image: bool, feedback: str
    ) -> ToolResult:
        where = f" (mouse at {state.mouse[0]},{state.mouse[1]})" if state.mouse else ""
        logs = "\n".join(state.console) if state.console else "(No new logs)"
        shot = (
            "The screenshot of the page after the action is attached."
            if with_image
            else "(The screenshot is not shown: the current model does not accept images.)"
        )
        text = (
            f"The browser action {action} was executed.\nCurrent URL: {state.url}{where}\n\n"
            f"Console logs:\n{logs}\n\n{shot}\n"
            "(The browser stays open: close it with browser_action close before using any other "
            "tool.)"
        )
        text = responses.with_feedback(text, feedback)
        screenshot = (ImageContent("image/png", state.screenshot_b64),)
        return ToolResult(text, images=screenshot if with_image else (), shown=screenshot)
