"""NamedFiles attaches the task's files at a task's start only, not when it goes on."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from pycline.core.capability import RunContext
from pycline.core.named_files import LEAD, NamedFiles
from pycline.events import Event
from pycline.messages import Message, TextContent
from pycline.workspace.ignore import IgnoreRules
from pycline.workspace.paths import Workspace


@dataclass
class Ctx:
    workspace: Workspace
    history: list[Message] = field(default_factory=list)
    said: list[Event] = field(default_factory=list)

    def say(self, event: Event) -> None:
        self.said.append(event)


async def attach(ctx: Any, text: str) -> list[str]:
    root = ctx.workspace.root
    got = await NamedFiles(IgnoreRules.load(root)).before_run(
        cast(RunContext, ctx), [TextContent(f"<task>\n{text}\n</task>")]
    )
    assert isinstance(got, list)
    return [c.text for c in got if isinstance(c, TextContent)]


async def test_only_the_first_run_of_a_task_attaches_what_it_names(workspace: Path) -> None:
    (workspace / "cart.py").write_text("class Cart: ...\n", encoding="utf-8")
    fresh = Ctx(Workspace.at(workspace))
    (added,) = await attach(fresh, "fix cart.py")
    assert added.startswith(LEAD) and "class Cart" in added
    assert len(fresh.said) == 1
    going_on = Ctx(Workspace.at(workspace), history=[Message.user("<task>\nfix cart.py\n</task>")])
    assert await attach(going_on, "and cart.py again") == []
    assert going_on.said == []
    assert await attach(Ctx(Workspace.at(workspace)), "nothing named") == []
