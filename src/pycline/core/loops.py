"""Loop detection: the model calling the same tool with the same arguments again and again.

The signature is the tool name and its parameters in key order, without `task_progress` (a
changing checklist does not make a repeated call new). Three identical calls in a row earn the
model a warning, two when the call failed (a failed call sent again fails again; a small model at
temperature 0 repeats it word for word until told); five stop it (the task asks the user, a
headless run ends). From the second identical call on, requests are sampled at `WARM` instead of
the provider's 0, until the model makes another call: at temperature 0 the same context gives the
same reply, and a warning alone often does not change it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final, Literal

from pycline.core.capability import Capability, RunContext
from pycline.core.options import TaskOutcome
from pycline.events import CONTINUE, MistakeLimitQuestion
from pycline.tools.base import ToolCall

WARN_AT: Final = 3
WARN_FAILED_AT: Final = 2
STOP_AT: Final = 5
WARM: Final = 0.7  # what chat models are commonly sampled at (Qwen2.5's own recommended setting)
REPEATED: Final = 2

LOOP_WARNING: Final = (
    "[WARNING] You have called this tool {count} times in a row with identical arguments. "
    "Repeating it will not give a different result: change the tool or its arguments, or "
    "explain what is blocking you."
)
FAILED_AGAIN: Final = (
    "[WARNING] This is the same call as before ({count} times in a row), and it failed the same "
    "way. Sending it again will fail again: read the error above and change the call, or use "
    "another tool."
)
# A model that repeats itself has often lost the thread: the task is said again, with the way out.
TASK_REMINDER: Final = (
    "The task is:\n<task>\n{task}\n</task>\nIf it is done, call attempt_completion; if not, do "
    "the next thing it still needs."
)
REMINDED_CHARS: Final = 600


def reminded(task: str) -> str:
    """The task as a reminder says it again: its first `REMINDED_CHARS` characters."""
    task = task.strip()
    return task[:REMINDED_CHARS] + " …" if len(task) > REMINDED_CHARS else task


def loop_stop_reason(name: str) -> str:
    return f"The model called {name} {STOP_AT} times in a row with identical arguments; stopped."


def signature(name: str, params: Mapping[str, str]) -> str:
    kept = {k: params[k] for k in sorted(params) if k != "task_progress"}
    return name + json.dumps(kept, ensure_ascii=False, sort_keys=True)


@dataclass(slots=True)
class LoopDetector(Capability):
    _last: str = ""
    _count: int = 0
    stopped_tool: str | None = None  # set when the stop threshold was reached

    def observe(
        self, name: str, params: Mapping[str, str], *, failed: bool = False
    ) -> Literal["ok", "warn", "stop"]:
        sig = signature(name, params)
        self._count = self._count + 1 if sig == self._last else 1
        self._last = sig
        if self._count >= STOP_AT:
            self.stopped_tool = name
            return "stop"
        if self._count >= (WARN_FAILED_AT if failed else WARN_AT):
            return "warn"
        return "ok"

    @property
    def count(self) -> int:
        return self._count

    def reset(self) -> None:
        """The user chose to go on: count afresh."""
        self._last = ""
        self._count = 0
        self.stopped_tool = None

    # --- as a capability: a warning with the result, a warmer sample, the user asked -----------

    def temperature(self, ctx: RunContext) -> float | None:
        return WARM if self._count >= REPEATED else None

    async def after_tool(
        self, ctx: RunContext, call: ToolCall, result: str, ok: bool, ms: int
    ) -> str:
        if self.observe(call.name, call.params, failed=not ok) == "ok":
            return ""
        warning = (FAILED_AGAIN if not ok else LOOP_WARNING).format(count=self._count)
        task = reminded(ctx.record.task)
        if not task:
            return warning
        return warning + "\n" + TASK_REMINDER.format(task=task)

    async def after_step(self, ctx: RunContext) -> TaskOutcome | None:
        tool = self.stopped_tool
        if tool is None:
            return None
        answer = await ctx.ask(MistakeLimitQuestion(self._count))
        if not answer.chose(CONTINUE) and not answer.text.strip():
            return TaskOutcome(False, loop_stop_reason(tool))
        self.reset()
        return None
