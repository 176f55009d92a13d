"""A real ToolContext for workspace tools: records approval questions, answers as told."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from pycline.events import Answer, ApprovalQuestion, Event, Question
from pycline.tools.base import AccessRules, AllowAll, Approval, ApprovalCategory, ToolContext
from pycline.workspace.paths import Workspace


@dataclass
class Recorder:
    approve_with: Approval = field(default_factory=lambda: Approval(True))
    questions: list[tuple[ApprovalQuestion, ApprovalCategory, bool]] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)

    async def approve(
        self, question: ApprovalQuestion, category: ApprovalCategory, *, outside_workspace: bool
    ) -> Approval:
        self.questions.append((question, category, outside_workspace))
        return self.approve_with

    def say(self, event: Event) -> None:
        self.events.append(event)

    async def ask(self, question: Question) -> Answer:
        raise AssertionError(f"unexpected question {question!r}")


def make_ctx(
    root: Path, *, access: AccessRules | None = None, approve_with: Approval | None = None
) -> tuple[ToolContext, Recorder]:
    rec = Recorder(approve_with or Approval(True))
    ctx = ToolContext(
        workspace=Workspace.at(root),
        approve=rec.approve,
        say_fn=rec.say,
        ask_fn=rec.ask,
        access=access or AllowAll(),
    )
    return ctx, rec


def write(root: Path, rel: str, text: str = "") -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path
