"""A real ToolContext for the MCP tools, with an approver that records what it was asked."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from pycline.events import Answer, ApprovalQuestion, Event, Question
from pycline.mcp.hub import McpHub
from pycline.tools.base import Approval, ApprovalCategory, ToolContext
from pycline.tools.services import ToolServices
from pycline.workspace.paths import Workspace


@dataclass
class RecordingApprover:
    approve: bool = True
    feedback: str = ""
    asked: list[tuple[ApprovalQuestion, ApprovalCategory]] = field(default_factory=list)

    async def __call__(
        self, question: ApprovalQuestion, category: ApprovalCategory, *, outside_workspace: bool
    ) -> Approval:
        self.asked.append((question, category))
        return Approval(self.approve, self.feedback)


async def _no_questions(question: Question) -> Answer:
    raise AssertionError(f"unexpected question {question}")


def tool_context(
    workspace: Path,
    hub: McpHub | None,
    approver: RecordingApprover,
    *,
    supports_images: bool = True,
) -> ToolContext:
    events: list[Event] = []
    return ToolContext(
        workspace=Workspace.at(workspace),
        approve=approver,
        say_fn=events.append,
        ask_fn=_no_questions,
        supports_images=supports_images,
        services=ToolServices(mcp_hub=hub),
    )
