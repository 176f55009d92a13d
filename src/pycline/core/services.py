"""Per-task services: the ignore rules, what the tools are lent (background processes, browser,
MCP hub, …), what to start beside the task's first request, and how to close them.

Chosen by the wiring module, handed to every tool call through `ToolContext`, and closed when the
task ends so no browser or background process outlives it.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from pycline.tools.base import AccessRules, AllowAll
from pycline.tools.services import ToolServices

log = logging.getLogger(__name__)

Closer = Callable[[], Awaitable[None]]


@dataclass(slots=True)
class TaskServices:
    access: AccessRules = field(default_factory=AllowAll)
    tools: ToolServices = field(default_factory=ToolServices)
    closers: list[Closer] = field(default_factory=list)
    # Started once the run's first request is answered (language servers warming up), never
    # before: a task built only to be looked at starts nothing.
    starters: list[Callable[[], None]] = field(default_factory=list)

    def start(self) -> None:
        """Run each starter once."""
        starters, self.starters = self.starters, []
        for start in starters:
            start()

    async def close(self) -> None:
        """Run every closer once, newest first; one failing closer does not stop the others."""
        closers, self.closers = self.closers[::-1], []
        for close in closers:
            try:
                await close()
            except Exception:  # cleanup must not mask the task's own outcome: log and go on
                log.exception("closing a task service failed")
