"""The running task as commands drive it: the only module of the app layer that changes a live
`Task` on a front end's behalf (its mode, model, approval policy, the command it waits on, its
background processes) or reads its state for a front end (mode, models, title, saved log)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pycline.commands import AutoApprove

if TYPE_CHECKING:
    from pycline.core.modes import Mode
    from pycline.core.steering import Steering
    from pycline.core.task import Task, TaskSettings
    from pycline.providers.base import Provider
    from pycline.terminal.background import BackgroundInfo


class TaskControls:
    def __init__(self, task: Task) -> None:
        self._task = task

    @property
    def task_id(self) -> str:
        return self._task.id

    @property
    def title(self) -> str:
        """The task's first message (what history lists it by)."""
        return self._task.record.task

    @property
    def mode(self) -> Mode:
        return self._task.mode

    @property
    def settings(self) -> TaskSettings:
        return self._task.settings

    @property
    def steering(self) -> Steering:
        """The messages the user sent while the task works, waiting for its next turn."""
        return self._task.deps.steering

    def provider_for(self, mode: Mode) -> Provider:
        return self._task.provider_for(mode)

    def models(self) -> dict[str, str]:
        """`provider/model` of each mode."""
        from pycline.core.modes import MODES

        found: dict[str, str] = {}
        for mode in MODES:
            provider = self._task.provider_for(mode)
            found[mode] = f"{provider.name}/{provider.model.id}"
        return found

    def reached_the_model(self) -> bool:
        """False for a task that failed before any reply (bad URL, refused key, unknown model)."""
        r = self._task.record
        return not (r.status == "failed" and r.tokens_in == 0 and r.tokens_out == 0)

    def begin(self, text: str) -> None:
        self._task.record.task = text  # the first prompt names the task

    async def compact(self) -> bool:
        return await self._task.compact()

    def set_mode(self, mode: Mode) -> None:
        self._task.set_mode(mode)

    def set_provider(self, provider: Provider, mode: Mode) -> None:
        self._task.set_provider(provider, mode=mode)

    def set_policy(self, policy: AutoApprove) -> None:
        self._task.set_approval(policy)

    def proceed(self) -> bool:
        """Tell the waiting command tool to stop waiting; False when nothing can be told."""
        return self._task.proceed()

    def processes(self) -> list[BackgroundInfo]:
        return self._task.processes()

    async def stop_process(self, number: int) -> None:
        """KeyError when the task has no background process `number`."""
        await self._task.stop_process(number)

    def set_goal(self, command: str, max_attempts: int) -> None:
        """Verify completions with `command` from the next one on ("": no goal)."""
        record = self._task.record
        record.goal = command.strip()
        record.goal_max_attempts = max_attempts
