"""What `/resume` and `pycline resume` show before they continue a task: its text, the last
things said, files changed, tokens, cost and the model it ran with. Nothing calls the model until
the user says so."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pycline.app.services.tasks import TaskRecord, Tasks, ago
from pycline.cli.render import cached_share
from pycline.cli.style import style

LAST_MESSAGES = 3
# The UI log's kinds worth recalling: what the model said and what the user answered.
_SAID = {"text": "model", "completion_result": "result", "user_feedback": "you", "task": "task"}


@dataclass(frozen=True, slots=True)
class Recap:
    record: TaskRecord
    lines: tuple[str, ...]

    @property
    def completed(self) -> bool:
        return self.record.status == "completed"


async def recap(home: Path, cwd: Path, task_id: str | None) -> Recap:
    """The task to resume (the latest in `cwd` without an id) and its summary lines."""
    from pycline.app.services.checkpoints import files_changed

    details = Tasks(home).show(task_id, workspace=cwd)
    r = details.record
    text = " ".join(r.task.split())
    lines = [
        style(f"Task {r.id} · {r.status} · {ago(r.ts)}", "bold"),
        f"  {text[:300]}{'…' if len(text) > 300 else ''}",
    ]
    # The user-facing log is a convenience: without it (unreadable) the recap goes on.
    said = [m for m in details.messages if m.kind in _SAID and m.text.strip()]
    # A result is logged as said and as asked about: recall it once.
    said = [m for i, m in enumerate(said) if i == 0 or m.text != said[i - 1].text]
    for m in said[-LAST_MESSAGES:]:
        first = " ".join(m.text.split())
        lines.append(
            style(f"  {_SAID[m.kind]}: {first[:160]}{'…' if len(first) > 160 else ''}", "dim")
        )
    files = await files_changed(home, r.id)
    changed = "" if files is None else f"{files} file{'s' if files != 1 else ''} changed · "
    tokens_in = r.tokens_in + r.cache_reads + r.cache_writes  # the record keeps them apart
    lines.append(
        f"  {changed}↑{tokens_in:,} ↓{r.tokens_out:,} tokens"
        f"{cached_share(r.cache_reads, tokens_in)} · ${r.total_cost:.4f}"
        f" · ran with {r.provider}/{r.model}"
    )
    return Recap(r, tuple(lines))


def continue_prompt(completed: bool) -> str:
    if completed:
        return "This task is completed. Type a new message to continue it (Enter goes back): "
    return "Press Enter to continue the task, or type a message first (/new leaves it): "
