"""Test doubles that ship with pycline: a scripted host, a gated provider, a task builder.

For pycline's own tests and for anyone building on it (a front end, a plug-in) who wants to run
the real task loop without a model: `ScriptedProvider` (providers.scripted) replies from a list,
`RecordingHost` answers questions from a list and keeps every event, `make_task` assembles a task
around them in a temporary home. Nothing here reaches the network.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pycline.app.builders import wiring
from pycline.app.live.assembly import TaskParts, assemble
from pycline.app.live.subagents import InlineSpawner
from pycline.context.manager import ContextManager
from pycline.core.approval import AutoApprove
from pycline.core.budget import CostGovernor
from pycline.core.capability import Capability
from pycline.core.commands import SlashCommands
from pycline.core.focus_chain import FocusChain
from pycline.core.handoffs import Handoffs
from pycline.core.loops import LoopDetector
from pycline.core.modes import Mode, ModeProfile
from pycline.core.options import TaskSettings
from pycline.core.run import Sleep
from pycline.core.services import TaskServices
from pycline.core.subagents import Subagents
from pycline.core.task import Task
from pycline.events import Answer, Event, Host, Question
from pycline.messages import Message
from pycline.parsing.native import ToolDefinition
from pycline.providers.base import ModelInfo, Provider, StreamChunk
from pycline.providers.closing import close_stream
from pycline.providers.scripted import ScriptedProvider, ScriptedReply
from pycline.storage.records import TaskRecord
from pycline.storage.task_store import TaskStore
from pycline.tools.base import Tool
from pycline.workspace.paths import Workspace

Responder = Callable[[Question], Answer]


def yes(question: Question) -> Answer:
    """The first option: approve, accept, switch to Act, continue, retry."""
    return Answer(question.options[0].id) if question.options else Answer()


def no(question: Question) -> Answer:
    """The last option: deny, stop (accept for a completion, as Enter does)."""
    return Answer(question.options[-1].id) if question.options else Answer()


@dataclass
class RecordingHost:
    """Answers questions from a queue (or a default) and records everything."""

    answers: list[Answer | Responder] = field(default_factory=list)
    default: Responder = yes
    events: list[Event] = field(default_factory=list)
    questions: list[Question] = field(default_factory=list)

    def say(self, event: Event) -> None:
        self.events.append(event)

    async def ask(self, question: Question) -> Answer:
        self.questions.append(question)
        if self.answers:
            answer = self.answers.pop(0)
            return answer if isinstance(answer, Answer) else answer(question)
        return self.default(question)

    def of_kind(self, kind: str) -> list[Event]:
        return [e for e in self.events if e.kind == kind]


def make_task(
    home: Path,
    workspace: Path,
    replies: Sequence[str | ScriptedReply],
    host: RecordingHost,
    *,
    settings: TaskSettings | None = None,
    task_text: str = "do it",
    budget: CostGovernor | None = None,
    context: ContextManager | None = None,
) -> tuple[Task, ScriptedProvider]:
    provider = ScriptedProvider.of(*replies, chunk_size=5)
    settings = settings or TaskSettings(auto_approve=AutoApprove(), max_retries=3)
    task = task_for(
        home,
        workspace,
        provider,
        host,
        tools=wiring.default_tools(),
        settings=settings,
        task_text=task_text,
        capabilities=default_capabilities(workspace, settings=settings, budget=budget),
        context=context,
    )
    return task, provider


async def _no_sleep(_: float) -> None:
    return None


def task_for(
    home: Path,
    workspace: Path,
    provider: Provider,
    host: Host,
    *,
    tools: Sequence[Tool] | None = None,
    settings: TaskSettings | None = None,
    task_text: str = "do it",
    services: TaskServices | None = None,
    system_prompt: str | None = None,
    profiles: Mapping[Mode, ModeProfile] | None = None,
    capabilities: Sequence[Capability] | None = None,
    context: ContextManager | None = None,
    sleep: Sleep = _no_sleep,
) -> Task:
    """A task on `provider` with the default tools (no browser) and capabilities, retries
    without waiting, its events and history saved as a session saves them. `profiles` gives
    each mode its own model, tools and prompt (then `provider` and `tools` are not used)."""
    tools = list(tools) if tools is not None else wiring.default_tools(browser=False)
    settings = settings or TaskSettings(auto_approve=AutoApprove())
    ws = Workspace.at(workspace)
    services = services or wiring.task_services(ws.root)
    if profiles is None:
        prompt = system_prompt or wiring.system_prompt(tools, ws.root)
        profiles = {"act": ModeProfile(provider, tools, prompt)}
    if capabilities is None:
        capabilities = default_capabilities(ws.root, services=services, settings=settings)
    folder = TaskStore(home).create()
    record = TaskRecord(id=folder.id, ts=0.0, task=task_text, workspace=str(ws.root))
    parts = TaskParts(
        folder=folder,
        record=record,
        workspace=ws,
        profiles=profiles,
        settings=settings,
        services=services,
        capabilities=capabilities,
        context=context or ContextManager(),
        sleep=sleep,
    )
    return assemble(parts, host)


def default_capabilities(
    root: Path,
    *,
    services: TaskServices | None = None,
    settings: TaskSettings | None = None,
    budget: CostGovernor | None = None,
) -> list[Capability]:
    """The features of a task built without a session: hand-offs, sub-agents (run in place),
    slash commands, spending caps (`budget`: none by default), the focus chain (in memory),
    loop detection. No hooks, no checkpoints."""
    settings = settings or TaskSettings()

    def prompt_for(tools: Sequence[Tool], native: bool) -> str:
        return wiring.system_prompt(tools, root, native=native)

    return [
        Handoffs(),
        Subagents(
            InlineSpawner(prompt_for),
            services=services,
            tool_call_format=settings.tool_call_format,
        ),
        SlashCommands(),
        budget or CostGovernor(),
        FocusChain(),
        LoopDetector(),
    ]


@dataclass
class GatedProvider:
    """A scripted provider whose first reply stops after its first chunk until `gate` opens
    (`streaming` is set then): lets a test act while a reply is in flight."""

    inner: ScriptedProvider
    gate: asyncio.Event = field(default_factory=asyncio.Event)
    streaming: asyncio.Event = field(default_factory=asyncio.Event)

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def model(self) -> ModelInfo:
        return self.inner.model

    async def stream(
        self,
        system: str,
        messages: Sequence[Message],
        *,
        tools: Sequence[ToolDefinition] = (),
        temperature: float | None = None,
    ) -> AsyncIterator[StreamChunk]:
        first = not self.inner.requests
        chunks = self.inner.stream(system, messages, tools=tools, temperature=temperature)
        try:
            async for chunk in chunks:
                yield chunk
                if first and not self.streaming.is_set():
                    self.streaming.set()
                    await self.gate.wait()
        finally:
            await close_stream(chunks)


def complete(result: str = "done") -> str:
    return f"<attempt_completion>\n<result>{result}</result>\n</attempt_completion>"
