"""What a task runs with (fixed for its life) and what its loop changes as it runs."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pycline.context.manager import ContextManager
from pycline.core.capability import Capability
from pycline.core.fallback import FallbackChain
from pycline.core.modes import Mode, ModeProfile
from pycline.core.options import TaskSettings
from pycline.core.persistence import TaskJournal
from pycline.core.services import TaskServices
from pycline.core.steering import Steering
from pycline.core.tool_format import ToolFormat
from pycline.events import Host
from pycline.messages import ImageContent, Message
from pycline.storage.records import TaskRecord
from pycline.workspace.paths import Workspace

Sleep = Callable[[float], Awaitable[None]]


@dataclass(frozen=True, slots=True)
class TaskDeps:
    """What a task runs with, chosen by the app's builder: where it speaks (`host`), where it
    works, where it is saved, what its tools are lent, and the features around its loop."""

    host: Host
    workspace: Workspace
    folder: Path  # the task's own folder (its files, its sub-agents')
    journal: TaskJournal
    settings: TaskSettings = field(default_factory=TaskSettings)
    services: TaskServices = field(default_factory=TaskServices)
    context: ContextManager = field(default_factory=ContextManager)
    capabilities: Sequence[Capability] = ()
    # The parts of the system prompt that change during a task (rules, skills, MCP servers),
    # given the files in play.
    prompt_extras: Callable[[Sequence[str]], str] | None = None
    sleep: Sleep = asyncio.sleep
    # The models the user listed to move to when this one cannot answer (core.fallback).
    fallbacks: FallbackChain = field(default_factory=FallbackChain)
    steering: Steering = field(default_factory=Steering)  # what the user sends while it works


@dataclass(slots=True)
class RunState:
    """What the loop changes as it runs: the conversation, the mode and its model, counters."""

    record: TaskRecord
    profiles: dict[Mode, ModeProfile]
    mode: Mode = "act"
    history: list[Message] = field(default_factory=list)
    tool_format: ToolFormat = field(default_factory=ToolFormat)
    files: FilesInPlay = field(default_factory=lambda: FilesInPlay())
    requests: int = 0
    mistakes: int = 0
    context_tokens: int = 0
    last_error: str | None = None
    auto_condensed: bool = False  # never condense twice in a row
    answer_images: list[ImageContent] = field(default_factory=list)  # for the next user message
    interrupted: tuple[str, str] | None = None  # (call id, partial result) on a stop


@dataclass(slots=True)
class FilesInPlay:
    """The files the task worked with: conditional rules apply to them, and a change someone
    else made to one is reported to the model."""

    paths: list[str] = field(default_factory=list)
    seen: dict[str, float | None] = field(default_factory=dict)

    def note(self, root: Path, path: str) -> None:
        if path not in self.paths:
            self.paths.append(path)
        self.seen[path] = _mtime(root / path)

    def changed_by_others(self, root: Path) -> list[str]:
        changed = []
        for path, seen in self.seen.items():
            now = _mtime(root / path)
            if now != seen:
                changed.append(path)
                self.seen[path] = now
        return changed


def _mtime(path: Path) -> float | None:
    try:
        return path.stat().st_mtime
    except OSError:  # deleted, or never existed
        return None
