"""The record of one task, as kept in `task_metadata.json` and the history index."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any


@dataclass(slots=True)
class TaskRecord:
    id: str
    ts: float  # last activity, seconds since the epoch
    task: str
    workspace: str
    provider: str = ""
    model: str = ""
    tokens_in: int = 0
    tokens_out: int = 0
    cache_writes: int = 0
    cache_reads: int = 0
    total_cost: float = 0.0
    status: str = "running"  # running | completed | cancelled | failed
    size: int = 0
    favorite: bool = False
    # A verified goal: the command that must exit 0 before the task completes ("": none), and
    # how many failed checks end it unverified (0: the default).
    goal: str = ""
    goal_max_attempts: int = 0
    # What each model that answered cost ("provider/model" -> USD): a fallback chain may use
    # several in one task.
    model_costs: dict[str, float] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @staticmethod
    def from_json(data: dict[str, Any]) -> TaskRecord:
        names = {f.name for f in fields(TaskRecord)}
        return TaskRecord(**{k: v for k, v in data.items() if k in names})
