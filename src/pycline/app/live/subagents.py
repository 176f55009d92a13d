"""Sub-agents' tasks: the core describes a child (`core.subagents.SubagentSpec`) and waits on it;
a spawner here builds its task and runs it.

A session's spawner runs each child behind a `TaskHandle` of its own and adds it to the parent's
`children`, so a front end may follow a sub-agent's own stream while the parent's shows its
progress; a custom agent's `modelId` is resolved with the session's provider configuration. A
task built without a session (an embedder's, a test's) runs its children in place.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence

from pycline.app.live.assembly import TaskParts, assemble
from pycline.app.live.handle import TaskHandle
from pycline.commands import Cancel
from pycline.core.budget import CostGovernor
from pycline.core.commands import SlashCommands
from pycline.core.focus_chain import FocusChain
from pycline.core.loops import LoopDetector
from pycline.core.modes import ModeProfile
from pycline.core.options import TaskOutcome
from pycline.core.subagents import SubagentRun, SubagentSpec
from pycline.core.task import Task
from pycline.events import Answer, Envelope, Event, Host, Question
from pycline.providers.base import Provider
from pycline.storage.records import TaskRecord
from pycline.storage.task_store import TaskFolder
from pycline.tools.base import Tool

PromptFor = Callable[[Sequence[Tool], bool], str]  # (tools, native) -> the system prompt


def child_task(spec: SubagentSpec, host: Host, provider: Provider, prompt_for: PromptFor) -> Task:
    """The child a spec describes, speaking to `host`: its own folder, record and recorder, its
    read-only tools, the brief after the system prompt for them."""
    spec.folder.mkdir(parents=True, exist_ok=True)
    record = TaskRecord(
        id=spec.task_id,
        ts=time.time(),
        task=spec.prompt,
        workspace=str(spec.workspace.root),
        provider=provider.name,
        model=provider.model.id,
    )
    brief = f"\n\n{spec.brief}\n"
    profile = ModeProfile(
        provider,
        spec.tools,
        prompt_for(spec.tools, False) + brief,
        prompt_for(spec.tools, True) + brief,
    )
    parts = TaskParts(
        folder=TaskFolder(spec.folder),
        record=record,
        workspace=spec.workspace,
        profiles={"act": profile},
        settings=spec.settings,
        services=spec.services,
        capabilities=(SlashCommands(), CostGovernor(), FocusChain(), LoopDetector()),
    )
    return assemble(parts, host)


class SessionSpawner:
    """`provider_for(model_id)` builds the parent's kind of provider for another model (None:
    the parent's provider serves every model, as the scripted one does); `prompt_for(tools,
    native)` writes the system prompt for a child's own tools."""

    def __init__(
        self,
        parent: Host,
        provider_for: Callable[[str], Provider | None],
        prompt_for: PromptFor,
    ) -> None:
        self._parent = parent
        self._provider_for = provider_for
        self._prompt_for = prompt_for

    def spawn(self, spec: SubagentSpec) -> SubagentRun:
        provider = spec.provider
        if spec.model_id and spec.model_id != provider.model.id:
            provider = self._provider_for(spec.model_id) or provider
        handle = TaskHandle(answerer=spec.answer)
        task = child_task(spec, handle, provider, self._prompt_for)
        handle.attach(task)

        def relay(envelope: Envelope) -> None:
            spec.observe(envelope.event)

        handle.listen(relay)
        if isinstance(self._parent, TaskHandle):
            self._parent.children.append(handle)
        handle.run(lambda: task.start(spec.prompt))
        return _Child(handle)


class _Child:
    """A child's handle as the core waits on it."""

    def __init__(self, handle: TaskHandle) -> None:
        self._handle = handle

    async def wait(self) -> TaskOutcome:
        return await self._handle.wait()

    def cancel(self) -> None:
        self._handle.post(Cancel())


class InlineSpawner:
    """Children run here, for tasks built without a session: on the parent's model (a custom
    agent's `modelId` needs a session's configuration and is ignored)."""

    def __init__(self, prompt_for: PromptFor) -> None:
        self._prompt_for = prompt_for

    def spawn(self, spec: SubagentSpec) -> SubagentRun:
        task = child_task(spec, _SpecHost(spec), spec.provider, self._prompt_for)
        return _InlineRun(asyncio.create_task(task.start(spec.prompt)))


class _SpecHost:
    """A child's host without a session: events to the spec's `observe`, questions to its
    `answer`."""

    def __init__(self, spec: SubagentSpec) -> None:
        self._spec = spec

    def say(self, event: Event) -> None:
        self._spec.observe(event)

    async def ask(self, question: Question) -> Answer:
        return self._spec.answer(question)


class _InlineRun:
    def __init__(self, work: asyncio.Task[TaskOutcome]) -> None:
        self._work = work

    async def wait(self) -> TaskOutcome:
        try:
            return await asyncio.shield(self._work)
        except asyncio.CancelledError:
            if self._work.cancelled():
                return TaskOutcome(False, "The task was cancelled.")
            raise

    def cancel(self) -> None:
        self._work.cancel()
