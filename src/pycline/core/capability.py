"""Capabilities: the features around the loop, each seeing the task through a narrow context.

Hooks, checkpoints, slash commands, the cost governor, the focus chain, loop detection, hand-offs
and sub-agents are each a `Capability`: the loop calls every capability at a few points of a run
(before it, on what the user types, before each request, when a request is charged, around each
tool call, after each turn and step, while a question waits, around compaction, at the end), and
a capability overrides only the points it needs. It sees the task through `RunContext`: what it
may read (the task's id, folder, workspace, mode, model, tools, history, totals) and do (say,
ask, approve, charge a spend, replace the history), never the task itself.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, Protocol, TypeVar

from pycline.core.modes import Mode
from pycline.core.options import TaskOutcome
from pycline.events import Answer, Event, Question
from pycline.messages import Content, Message
from pycline.providers.base import Provider
from pycline.storage.records import TaskRecord
from pycline.tools.base import Approver, Tool, ToolCall, ToolEffect, ToolFacts, ToolSpec
from pycline.workspace.paths import Workspace

if TYPE_CHECKING:
    from pycline.core.streaming import Reply
    from pycline.core.turn import Step

C = TypeVar("C", bound="Capability")


class RunContext(Protocol):
    """What a capability may read of the running task, and do to it."""

    @property
    def task_id(self) -> str: ...

    @property
    def folder(self) -> Path:
        """The task's folder (its files, its sub-agents' folders)."""
        ...

    @property
    def workspace(self) -> Workspace: ...

    @property
    def mode(self) -> Mode: ...

    @property
    def provider(self) -> Provider: ...

    @property
    def tools(self) -> Mapping[str, Tool]:
        """The tools of the current mode."""
        ...

    @property
    def native(self) -> bool:
        """Tools go to the model as native definitions (not as XML docs in the prompt)."""
        ...

    @property
    def history(self) -> Sequence[Message]: ...

    @property
    def record(self) -> TaskRecord:
        """The task's record: its text, status and spend so far (to read)."""
        ...

    @property
    def approve(self) -> Approver: ...

    def facts(self, name: str) -> ToolFacts: ...

    def say(self, event: Event) -> None: ...

    async def ask(self, question: Question) -> Answer: ...

    def charge(self, cost: float, tokens_in: int, tokens_out: int) -> None:
        """Add a spend made for this task (a sub-agent's request) to its record and caps."""
        ...

    def replace_history(self, history: Sequence[Message]) -> None:
        """Start the conversation over from `history` (a summary the user approved)."""
        ...


@dataclass(frozen=True, slots=True)
class Stop:
    """Why the run must end before its next request."""

    reason: str
    over_budget: bool = False


class Capability:
    """A feature around the loop. Every point does nothing unless the feature overrides it;
    `runs` names the effect (`ToolFacts.effect`) of the tools the capability runs itself."""

    runs: ClassVar[ToolEffect | None] = None

    async def before_run(self, ctx: RunContext, content: Sequence[Content]) -> list[Content] | Stop:
        """Before the first request of a run (`content`: what the user said); what to add to it."""
        return []

    def expand(self, ctx: RunContext, text: str) -> str:
        """What the user typed (a task, an answer), made ready for the model."""
        return text

    def offer(self, ctx: RunContext, specs: Sequence[ToolSpec]) -> Sequence[ToolSpec]:
        """The tools offered to the model in the next request."""
        return specs

    async def before_request(self, ctx: RunContext) -> list[Content] | Stop:
        """Before each request: notes for the user message it sends."""
        return []

    def temperature(self, ctx: RunContext) -> float | None:
        """The sampling temperature the next request should use; None leaves the provider's."""
        return None

    def charged(self, ctx: RunContext, cost: float, tokens: int) -> None:
        """A request (this task's or a sub-agent's) was paid for."""

    async def run_tool(self, ctx: RunContext, call: ToolCall, call_id: str) -> Step:
        raise NotImplementedError(call.name)

    async def answer_instead(self, ctx: RunContext, call: ToolCall, call_id: str) -> Step | None:
        """Before a call runs: the step to answer it with instead of running it (a goal's check
        that failed answers a completion attempt), or None to run it."""
        return None

    async def before_tool(self, ctx: RunContext, call: ToolCall) -> str:
        """Before a call runs: "" to go on, else why it is refused (the task stops after it)."""
        return ""

    async def after_tool(
        self, ctx: RunContext, call: ToolCall, result: str, ok: bool, ms: int
    ) -> str:
        """After a call ran: a note to add to its result ("" for none)."""
        return ""

    async def after_turn(self, ctx: RunContext, reply: Reply) -> None:
        """After every call of a reply ran, before the next request."""

    async def after_step(self, ctx: RunContext) -> TaskOutcome | None:
        """How the task ends after this step, if it does."""
        return None

    def question(self, ctx: RunContext, question: Question) -> None:
        """A question now waits for the user."""

    async def before_compact(
        self, ctx: RunContext, strategy: str, context_size: int
    ) -> tuple[bool, str]:
        """Before history is condensed or trimmed: whether to go on, and context for the model."""
        return True, ""

    def compacted(self, ctx: RunContext, progress: str) -> None:
        """History was condensed into a summary (`progress`: the checklist it carried)."""

    def mode_changed(self, ctx: RunContext, mode: Mode) -> None: ...

    async def on_end(self, ctx: RunContext, outcome: TaskOutcome) -> None:
        """The run ended (not cancelled)."""

    async def on_cancel(self, ctx: RunContext) -> None: ...

    async def close(self, ctx: RunContext) -> None:
        """The run is over, whichever way: finish what is still under way."""


class Capabilities:
    """The task's capabilities, called in order at each point (only those that override it)."""

    def __init__(self, items: Sequence[Capability] = ()) -> None:
        self.items = tuple(items)
        self._at: dict[Callable[..., object], tuple[Capability, ...]] = {}

    def first(self, kind: type[C]) -> C | None:
        """The task's capability of this kind, if it has one."""
        return next((c for c in self.items if isinstance(c, kind)), None)

    def _with(self, point: Callable[..., object]) -> tuple[Capability, ...]:
        """The capabilities that do something at `point` (the base class's method: a point that
        does not exist fails the type check, not the run)."""
        found = self._at.get(point)
        if found is None:
            found = tuple(c for c in self.items if getattr(type(c), point.__name__) is not point)
            self._at[point] = found
        return found

    async def before_run(self, ctx: RunContext, content: Sequence[Content]) -> list[Content] | Stop:
        added: list[Content] = []
        for cap in self._with(Capability.before_run):
            got = await cap.before_run(ctx, content)
            if isinstance(got, Stop):
                return got
            added += got
        return added

    def expand(self, ctx: RunContext, text: str) -> str:
        for cap in self._with(Capability.expand):
            text = cap.expand(ctx, text)
        return text

    def offer(self, ctx: RunContext, specs: Sequence[ToolSpec]) -> Sequence[ToolSpec]:
        for cap in self._with(Capability.offer):
            specs = cap.offer(ctx, specs)
        return specs

    async def before_request(self, ctx: RunContext) -> list[Content] | Stop:
        notes: list[Content] = []
        for cap in self._with(Capability.before_request):
            got = await cap.before_request(ctx)
            if isinstance(got, Stop):
                return got
            notes += got
        return notes

    def temperature(self, ctx: RunContext) -> float | None:
        """The warmest temperature any capability asks for (None: the provider's own)."""
        asked = [
            t
            for cap in self._with(Capability.temperature)
            if (t := cap.temperature(ctx)) is not None
        ]
        return max(asked, default=None)

    def charged(self, ctx: RunContext, cost: float, tokens: int) -> None:
        for cap in self._with(Capability.charged):
            cap.charged(ctx, cost, tokens)

    def runner(self, ctx: RunContext, name: str) -> Capability | None:
        """The capability that runs calls of `name` itself, if one does."""
        effect = ctx.facts(name).effect
        return next((cap for cap in self.items if cap.runs == effect), None)

    async def answer_instead(self, ctx: RunContext, call: ToolCall, call_id: str) -> Step | None:
        for cap in self._with(Capability.answer_instead):
            step = await cap.answer_instead(ctx, call, call_id)
            if step is not None:
                return step
        return None

    async def before_tool(self, ctx: RunContext, call: ToolCall) -> str:
        for cap in self._with(Capability.before_tool):
            refused = await cap.before_tool(ctx, call)
            if refused:
                return refused
        return ""

    async def after_tool(
        self, ctx: RunContext, call: ToolCall, result: str, ok: bool, ms: int
    ) -> str:
        notes = [
            await cap.after_tool(ctx, call, result, ok, ms)
            for cap in self._with(Capability.after_tool)
        ]
        return "\n\n".join(n for n in notes if n)

    async def after_turn(self, ctx: RunContext, reply: Reply) -> None:
        for cap in self._with(Capability.after_turn):
            await cap.after_turn(ctx, reply)

    async def after_step(self, ctx: RunContext) -> TaskOutcome | None:
        for cap in self._with(Capability.after_step):
            ended = await cap.after_step(ctx)
            if ended is not None:
                return ended
        return None

    def question(self, ctx: RunContext, question: Question) -> None:
        for cap in self._with(Capability.question):
            cap.question(ctx, question)

    async def before_compact(
        self, ctx: RunContext, strategy: str, context_size: int
    ) -> tuple[bool, str]:
        contexts = []
        for cap in self._with(Capability.before_compact):
            go_on, context = await cap.before_compact(ctx, strategy, context_size)
            if not go_on:
                return False, ""
            contexts.append(context)
        return True, "\n\n".join(c for c in contexts if c)

    def compacted(self, ctx: RunContext, progress: str) -> None:
        for cap in self._with(Capability.compacted):
            cap.compacted(ctx, progress)

    def mode_changed(self, ctx: RunContext, mode: Mode) -> None:
        for cap in self._with(Capability.mode_changed):
            cap.mode_changed(ctx, mode)

    async def on_end(self, ctx: RunContext, outcome: TaskOutcome) -> None:
        for cap in self._with(Capability.on_end):
            await cap.on_end(ctx, outcome)

    async def on_cancel(self, ctx: RunContext) -> None:
        for cap in self._with(Capability.on_cancel):
            await cap.on_cancel(ctx)

    async def close(self, ctx: RunContext) -> None:
        """Every capability closes, even when one of them fails (the first failure is raised)."""
        failure: BaseException | None = None
        for cap in self._with(Capability.close):
            try:
                await cap.close(ctx)
            except BaseException as exc:  # re-raised once the rest have closed
                failure = failure or exc
        if failure is not None:
            raise failure
