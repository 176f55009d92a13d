"""A ToolContext for the edit tools: a real workspace and a tiny scripted approver."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from pycline.events import Answer, ApprovalQuestion, Event, Question
from pycline.tools.base import (
    AccessRules,
    AllowAll,
    Approval,
    ApprovalCategory,
    ToolCall,
    ToolContext,
)
from pycline.tools.services import ToolServices
from pycline.workspace.paths import Workspace


@dataclass
class FakeApprover:
    """Answers every approval with `answer`, and remembers what it was asked."""

    answer: Approval = field(default_factory=lambda: Approval(True))
    asked: list[tuple[ApprovalQuestion, ApprovalCategory, bool]] = field(default_factory=list)

    async def __call__(
        self, question: ApprovalQuestion, category: ApprovalCategory, *, outside_workspace: bool
    ) -> Approval:
        self.asked.append((question, category, outside_workspace))
        return self.answer


class BlockSecrets:
    """Ignore rules that hide every path containing `secret`."""

    def blocked(self, path: Path) -> bool:
        return "secret" in path.as_posix()

    def command_refusal(self, command: str) -> str | None:
        return None


def make_context(
    root: Path,
    approver: FakeApprover | None = None,
    *,
    model_family: str = "claude",
    access: AccessRules | None = None,
    services: ToolServices | None = None,
) -> ToolContext:
    events: list[Event] = []

    def say(event: Event) -> None:
        events.append(event)

    async def ask(question: Question) -> Answer:
        raise AssertionError(f"the edit tools must not ask directly: {question}")

    return ToolContext(
        workspace=Workspace.at(root),
        approve=approver or FakeApprover(),
        say_fn=say,
        ask_fn=ask,
        model_family=model_family,
        access=access or AllowAll(),
        services=services or ToolServices(),
    )


def call(name: str, **params: str) -> ToolCall:
    return ToolCall(name, params)
