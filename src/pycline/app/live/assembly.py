"""A `Task` put together from its parts, with the recorder that saves it: what the builder does
for a session's tasks and sub-agents, and what tests and embedders do for a task of their own."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from pycline.app.live.recorder import Recorder, recorded
from pycline.context.manager import ContextManager
from pycline.core.capability import Capability
from pycline.core.fallback import FallbackChain
from pycline.core.modes import MODES, Mode, ModeProfile, as_mode
from pycline.core.options import TaskSettings
from pycline.core.run import RunState, Sleep, TaskDeps
from pycline.core.services import TaskServices
from pycline.core.task import Task
from pycline.core.tool_format import ToolFormat
from pycline.events import Host
from pycline.messages import Message
from pycline.storage.records import TaskRecord
from pycline.storage.task_store import TaskFolder
from pycline.workspace.paths import Workspace


@dataclass(frozen=True, slots=True)
class TaskParts:
    """Everything a task is made of besides its host. `profiles`: each mode's model, tools and
    prompt (a mode missing runs as the first one given)."""

    folder: TaskFolder
    record: TaskRecord
    workspace: Workspace
    profiles: Mapping[Mode, ModeProfile]
    settings: TaskSettings = field(default_factory=TaskSettings)
    services: TaskServices = field(default_factory=TaskServices)
    capabilities: Sequence[Capability] = ()
    history: list[Message] = field(default_factory=list)
    context: ContextManager = field(default_factory=ContextManager)
    prompt_extras: Callable[[Sequence[str]], str] | None = None
    sleep: Sleep = asyncio.sleep
    fallbacks: FallbackChain = field(default_factory=FallbackChain)


def assemble(parts: TaskParts, host: Host, *, background: bool = True) -> Task:
    """The task, speaking to `host`, its events and history saved by a recorder (its writes on a
    thread of their own with `background`)."""
    history = parts.history
    recorder = Recorder(parts.folder, history, background=background)
    if history:
        recorder.start_from(history)  # only what changes from now on is written
    first = next(iter(parts.profiles.values()))
    profiles = {m: parts.profiles.get(m, first) for m in MODES}
    deps = TaskDeps(
        host=recorded(host, recorder, parts.folder.id),
        workspace=parts.workspace,
        folder=parts.folder.path,
        journal=recorder,
        settings=parts.settings,
        services=parts.services,
        context=parts.context,
        capabilities=tuple(parts.capabilities),
        prompt_extras=parts.prompt_extras,
        sleep=parts.sleep,
        fallbacks=parts.fallbacks,
    )
    state = RunState(
        record=parts.record,
        profiles=profiles,
        mode=as_mode(parts.settings.mode),
        history=history,
        tool_format=ToolFormat(parts.settings.tool_call_format),
    )
    return Task(deps, state)
