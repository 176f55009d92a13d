"""A real ToolContext for read_file and execute_command tests: records what the tool asks and says."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path

from pycline.events import Answer, ApprovalQuestion, Event, Question, ToolOutput
from pycline.tools.base import Approval, ApprovalCategory, ToolContext
from pycline.tools.services import ToolServices
from pycline.workspace.paths import Workspace


@dataclass
class FakeAccess:
    """AccessRules with a fixed set of hidden paths and one refused command word."""

    hidden: set[Path] = field(default_factory=set)
    refused_word: str | None = None

    def blocked(self, path: Path) -> bool:
        return path in self.hidden

    def command_refusal(self, command: str) -> str | None:
        if self.refused_word and self.refused_word in command.split():
            return f"'{self.refused_word}' is denied by the command permission rules."
        return None


@dataclass
class Recorder:
    approve: bool = True
    feedback: str = ""
    approvals: list[tuple[ApprovalQuestion, ApprovalCategory, bool]] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    output_seen: asyncio.Event = field(default_factory=asyncio.Event)

    async def approver(
        self, question: ApprovalQuestion, category: ApprovalCategory, *, outside_workspace: bool
    ) -> Approval:
        self.approvals.append((question, category, outside_workspace))
        return Approval(self.approve, self.feedback)

    def say(self, event: Event, /) -> None:
        self.events.append(event)
        if isinstance(event, ToolOutput):
            self.output_seen.set()

    async def ask(self, question: Question, /) -> Answer:
        raise AssertionError(f"unexpected question {question!r}")

    @property
    def output(self) -> str:
        return "".join(e.text for e in self.events if isinstance(e, ToolOutput))


def make_ctx(
    root: Path,
    *,
    approve: bool = True,
    feedback: str = "",
    supports_images: bool = False,
    access: FakeAccess | None = None,
    command_timeout: float = 30.0,
    services: ToolServices | None = None,
) -> tuple[ToolContext, Recorder]:
    recorder = Recorder(approve=approve, feedback=feedback)
    ctx = ToolContext(
        workspace=Workspace.at(root),
        approve=recorder.approver,
        say_fn=recorder.say,
        ask_fn=recorder.ask,
        supports_images=supports_images,
        command_timeout=command_timeout,
        access=access or FakeAccess(),
        services=services or ToolServices(),
    )
    return ctx, recorder


def live_group_members(pgid: int) -> list[int]:
    """Independent of the code under test: running (non-zombie) processes of a group."""
    found: list[int] = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        state, _ppid, pgrp = stat[stat.rfind(")") + 2 :].split()[:3]
        if int(pgrp) == pgid and state not in ("Z", "X"):
            found.append(int(entry.name))
    return found
