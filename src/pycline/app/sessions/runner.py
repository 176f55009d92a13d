"""Running a task to its end the same way in every front end.

A task that ends by handing off (`new_task`, approved by the user) continues at once as a new
task in the same session, with the same settings and models, in the mode it ended in; a new task
that failed before the model ever answered (a bad address, a refused key) is not kept. Front ends
say how they follow each task of the chain; the rest of the policy is here.
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pycline.app.live.handle import TaskHandle, controls_of
from pycline.errors import StorageError

if TYPE_CHECKING:
    from pycline.app.sessions.session import Session
    from pycline.core.task import TaskOutcome

Follow = Callable[[TaskHandle], Awaitable[None]]


@dataclass(frozen=True, slots=True)
class Finished:
    handle: TaskHandle  # the chain's last task
    outcome: TaskOutcome
    discarded: bool = False  # it never reached the model, so nothing of it was kept


async def run_chain(
    session: Session,
    handle: TaskHandle,
    *,
    follow: Follow | None = None,
    continued: Callable[[TaskHandle, TaskHandle], None] | None = None,
) -> Finished:
    """Wait for `handle`'s task, then for each task it hands off to; `follow(handle)` shows one
    task until it ends (default: just wait), `continued(previous, next)` is told of each
    hand-off before the next task is followed."""
    outcome = await _followed(handle, follow)
    while outcome.next_task is not None:
        following = await continue_task(session, handle, outcome.next_task)
        if continued is not None:
            continued(handle, following)
        handle = following
        outcome = await _followed(handle, follow)
    if not outcome.completed and not controls_of(handle).reached_the_model():
        await discard(session, handle.id)
        return Finished(handle, outcome, discarded=True)
    return Finished(handle, outcome)


async def _followed(handle: TaskHandle, follow: Follow | None) -> TaskOutcome:
    if follow is not None:
        await follow(handle)
    return await handle.wait()


async def continue_task(session: Session, previous: TaskHandle, text: str) -> TaskHandle:
    """The task `previous` handed off to, started with `text` (the context the user approved)."""
    from pycline.app.sessions.session import TaskOptions

    was = controls_of(previous)
    options = TaskOptions(
        settings=was.settings,
        provider=was.provider_for("act"),
        plan_provider=was.provider_for("plan"),
    )
    return await session.new_task(text, mode=was.mode, options=options)


async def discard(session: Session, task_id: str) -> None:
    """Forget a task that never reached the model: nothing in it is worth keeping."""
    from pycline.app.services.tasks import forget_checkpoints

    store = session.store
    try:
        record = store.open(task_id).load_record()
    except StorageError:
        return  # already gone
    with contextlib.suppress(StorageError):
        store.delete(task_id)
    await forget_checkpoints(store, record)  # after: it keeps what other tasks still use
