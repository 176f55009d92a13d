"""Sub-agents as session tasks: each child runs behind a `TaskHandle` of its own.

The core describes a child (`core.subagents.SubagentSpec`) and waits on it; this spawner builds
its task, runs it like any session task and adds its handle to the parent's `children`, so a
front end may follow a sub-agent's own stream while the parent's shows its progress. A custom
agent's `modelId` is resolved here, with the session's provider configuration.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from pycline.app.handle import TaskHandle
from pycline.commands import Cancel
from pycline.core.subagents import SubagentRun, SubagentSpec, child_task
from pycline.core.task import TaskOutcome
from pycline.events import Envelope, Host
from pycline.providers.base import Provider
from pycline.tools.base import Tool


class SessionSpawner:
    """`provider_for(model_id)` builds the parent's kind of provider for another model (None:
    the parent's provider serves every model, as the scripted one does); `prompt_for(tools,
    native)` writes the system prompt for a child's own tools."""

    def __init__(
        self,
        parent: Host,
        provider_for: Callable[[str], Provider | None],
        prompt_for: Callable[[Sequence[Tool], bool], str],
    ) -> None:
        self._parent = parent
        self._provider_for = provider_for
        self._prompt_for = prompt_for

    def spawn(self, spec: SubagentSpec) -> SubagentRun:
        provider = spec.provider
        if spec.model_id and spec.model_id != provider.model.id:
            provider = self._provider_for(spec.model_id) or provider
        handle = TaskHandle(answerer=spec.answer)
        system = self._prompt_for(spec.tools, False)
        task = child_task(spec, handle, provider, system, self._prompt_for(spec.tools, True))
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
