"""A ToolContext for calling tools directly, recording every approval question."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from pycline.browser.session import BrowserSession
from pycline.events import Answer, ApprovalQuestion, Event, Question
from pycline.tools.base import Approval, ApprovalCategory, ToolContext
from pycline.tools.services import ToolServices
from pycline.workspace.paths import Workspace


@dataclass
class Approvals:
    answer: Approval = field(default_factory=lambda: Approval(True))
    asked: list[tuple[ApprovalQuestion, ApprovalCategory, bool]] = field(default_factory=list)

    async def __call__(
        self, question: ApprovalQuestion, category: ApprovalCategory, *, outside_workspace: bool
    ) -> Approval:
        self.asked.append((question, category, outside_workspace))
        return self.answer


def tool_context(
    root: Path, approvals: Approvals, *, images: bool = True, browser: BrowserSession | None = None
) -> ToolContext:
    events: list[Event] = []

    async def ask(question: Question) -> Answer:
        raise AssertionError(f"unexpected question {question}")

    return ToolContext(
        workspace=Workspace.at(root),
        approve=approvals,
        say_fn=events.append,
        ask_fn=ask,
        supports_images=images,
        services=ToolServices(browser=browser),
    )
