"""Where a task's conversation is saved, as the loop sees it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from pycline.messages import Message
from pycline.storage.records import TaskRecord


class TaskJournal(Protocol):
    """The task's model history, its record and its context state, saved in order (the app's
    recorder, which also follows the task's events). Told what changed; `flush` waits until
    what was said so far is written (what a kill must not lose)."""

    def start_from(self, history: Sequence[Message]) -> None: ...

    def history_changed(self, history: Sequence[Message]) -> None: ...

    def record_changed(self, record: TaskRecord) -> None: ...

    def context_changed(self, state: Any) -> None: ...

    async def flush(self) -> None: ...

    async def close(self) -> None: ...
