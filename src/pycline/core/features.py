"""Cline's agent features around the loop: tool-call format, focus chain, loop detection, the
cost governor. The task calls these at a few hook points; each feature keeps its own state here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from pycline.core import commands
from pycline.core.budget import CostGovernor
from pycline.core.focus_chain import FocusChain
from pycline.core.loops import LoopDetector, loop_stop_reason
from pycline.core.tool_format import ToolFormat
from pycline.events import MistakeLimitQuestion
from pycline.messages import Content, TextContent
from pycline.parsing.native import ToolDefinition
from pycline.prompts.tool_schema import definitions

if TYPE_CHECKING:
    from pycline.core.task import Task


@dataclass(slots=True)
class AgentFeatures:
    tool_format: ToolFormat = field(default_factory=ToolFormat)
    focus: FocusChain = field(default_factory=FocusChain)
    loops: LoopDetector = field(default_factory=LoopDetector)
    budget: CostGovernor = field(default_factory=CostGovernor)
    global_workflows: Path | None = None  # the user's own workflows folder

    def expand_commands(self, text: str, root: Path) -> str:
        """A slash command in the user's text (a built-in or a workflow) as instructions."""
        if "/" not in text:
            return text
        return commands.expand(text, commands.workflow_files(root, self.global_workflows)).text

    def native_tools(self, task: Task) -> tuple[ToolDefinition, ...]:
        """The tool definitions to send, or () when this request uses XML tool calls."""
        if not self.tool_format.native(task.provider.model):
            return ()
        return definitions([t.spec for t in task.tools.values()])

    async def before_request(self, task: Task) -> tuple[list[Content], str | None]:
        """Notes for the next user message, and why the task must stop now (a spending cap the
        user would not raise), if it must."""
        while (question := self.budget.reached()) is not None:
            answer = await task.ask(question)
            if not self.budget.raise_cap(question, answer):
                return [], self.budget.stop_reason(question)
        note, edited = self.focus.reminder(mode=task.mode)
        if edited is not None:
            task.say(edited)
        return ([TextContent(note)] if note else []), None

    async def after_step(self, task: Task) -> str | None:
        """Why the task must stop after a step (the model looped and the user gave up)."""
        tool = self.loops.stopped_tool
        if tool is None:
            return None
        answer = await task.ask(MistakeLimitQuestion(self.loops.count))
        if not answer.approved and not answer.text.strip():
            return loop_stop_reason(tool)
        self.loops.reset()
        return None

    def charged(self, task: Task, cost: float, tokens: int) -> None:
        self.budget.charge(cost, tokens)
        for status in self.budget.status():
            task.say(status)
