"""How a task runs (its settings) and how a run of it ended (its outcome)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

from pycline.core.approval import AutoApprove
from pycline.core.tool_format import ToolCallFormat


@dataclass(frozen=True, slots=True)
class TaskSettings:
    auto_approve: AutoApprove = field(default_factory=AutoApprove)
    approve_all_inside: bool = False  # headless --yes
    headless: bool = False
    max_mistakes: int | None = None  # None: `mistake_limit` of the model
    max_retries: int = 3
    retry_base_delay: float = 1.0
    command_timeout: float = 600.0
    mode: str = "act"
    custom_instructions: str = ""
    auto_condense: float | None = None  # autoCondenseThreshold: condense at this share
    context_limit: int | None = None  # contextLimit: tokens at which history is trimmed
    tool_call_format: ToolCallFormat = "auto"


@dataclass(frozen=True, slots=True)
class TaskOutcome:
    completed: bool
    reason: str
    over_budget: bool = False  # stopped at a spending cap
    unverified: bool = False  # the goal's check still failed when its attempts ran out
    next_task: str | None = None  # new_task: the text of the task to start next


# Mistakes in a row before the user is asked: Cline's 3; 6 for a model on this machine, whose
# retries cost nothing and which, told exactly what was wrong, often gets it right on a later try.
MISTAKES: Final = 3
LOCAL_MISTAKES: Final = 6


def mistake_limit(setting: int | None, local: bool) -> int:
    return setting if setting is not None else LOCAL_MISTAKES if local else MISTAKES
