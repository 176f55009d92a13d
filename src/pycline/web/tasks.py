"""Running tasks as the UI sees them: a log of wire events that any number of pages subscribe to.

This is the shape of the session layer's `TaskHandle` (subscribe with replay, pending questions,
answer by question id, cancel, compact, set mode), built on the `Controller` until that layer is in
place. Each task runs in its own asyncio task, so closing the browser never stops it; a page that
connects later (a reload, a second tab) gets the whole log replayed, then live events.
"""

from __future__ import annotations

import asyncio
import base64
import time
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pycline.app.config import ModelConfig
from pycline.app.controller import Controller
from pycline.core.modes import as_mode
from pycline.core.task import Task, TaskOutcome
from pycline.errors import PyclineError
from pycline.events import Answer, Event, Question, TaskEnded
from pycline.messages import ImageContent
from pycline.web.transcript import saved_events
from pycline.web.wire import BadAnswer, event_json, parse_answer, question_json

Status = Literal["running", "waiting", "completed", "failed", "cancelled"]
SUBSCRIBER_QUEUE = 10_000  # a page that stops reading is dropped rather than holding memory


@dataclass
class _Pending:
    question: Question
    future: asyncio.Future[Answer]


@dataclass
class WebTask:
    """One task: the `Host` its core talks to, and the event log pages replay."""

    id: str = ""
    text: str = ""
    run: str = field(default_factory=lambda: uuid.uuid4().hex[:12])  # a resumed task is a new run
    status: Status = "running"
    log: list[dict[str, Any]] = field(default_factory=list)
    task: Task | None = None
    runner: asyncio.Task[TaskOutcome] | None = None
    _pending: dict[str, _Pending] = field(default_factory=dict)
    _subscribers: set[asyncio.Queue[dict[str, Any] | None]] = field(default_factory=set)

    # --- the Host protocol --------------------------------------------------------------------

    def say(self, event: Event) -> None:
        if isinstance(event, TaskEnded) and self.status != "cancelled":
            self.status = "completed" if event.completed else "failed"
        self._emit(event_json(self.id, len(self.log), time.time(), event))
        if isinstance(event, TaskEnded):
            self._emit_status()

    async def ask(self, question: Question) -> Answer:
        question_id = uuid.uuid4().hex[:12]
        future: asyncio.Future[Answer] = asyncio.get_running_loop().create_future()
        self._pending[question_id] = _Pending(question, future)
        self.status = "waiting"
        self._emit(
            self._wire("question_asked", question_id=question_id, question=question_json(question))
        )
        self._emit_status()
        try:
            answer = await future
        finally:
            self._pending.pop(question_id, None)
        self.status = "running"
        self._emit(
            self._wire(
                "question_answered",
                question_id=question_id,
                response=answer.response,
                text=answer.text,
                edited=answer.edited_content is not None,
            )
        )
        self._emit_status()
        return answer

    # --- what pages do ------------------------------------------------------------------------

    def answer(self, question_id: str, data: dict[str, Any]) -> None:
        pending = self._pending.get(question_id)
        if pending is None or pending.future.done():
            raise BadAnswer("that question is no longer open")
        pending.future.set_result(parse_answer(pending.question, data))

    @property
    def pending_questions(self) -> list[str]:
        return list(self._pending)

    def cancel(self) -> None:
        if self.runner is not None and not self.runner.done():
            self.status = "cancelled"
            self.runner.cancel()

    async def compact(self) -> bool:
        return await self.task.compact() if self.task is not None else False

    def set_mode(self, mode: str) -> None:
        if self.task is not None:
            self.task.set_mode(as_mode(mode))

    async def subscribe(self, *, replay: bool = True) -> AsyncIterator[list[dict[str, Any]]]:
        """Batches of events: first the whole log (when `replay`), then each new event."""
        queue: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue(SUBSCRIBER_QUEUE)
        self._subscribers.add(queue)
        try:
            if replay and self.log:
                yield list(self.log)
            while True:
                item = await queue.get()
                if item is None:
                    return
                batch = [item]
                while not queue.empty():  # stream chunks that piled up go out together
                    more = queue.get_nowait()
                    if more is None:
                        yield batch
                        return
                    batch.append(more)
                yield batch
        finally:
            self._subscribers.discard(queue)

    def summary(self) -> dict[str, Any]:
        mode = self.task.mode if self.task is not None else "act"
        return {"id": self.id, "task": self.text, "status": self.status, "mode": mode}

    # --- plumbing -----------------------------------------------------------------------------

    def _wire(self, kind: str, **fields: Any) -> dict[str, Any]:
        return {
            "v": 2,
            "task_id": self.id,
            "seq": len(self.log),
            "ts": time.time(),
            "kind": kind,
            **fields,
        }

    def _emit_status(self) -> None:
        self._emit(self._wire("task_status", status=self.status))

    def _emit(self, item: dict[str, Any]) -> None:
        self.log.append(item)
        for queue in list(self._subscribers):
            try:
                queue.put_nowait(item)
            except asyncio.QueueFull:
                # A page that stopped reading is let go; it reconnects and replays the log.
                self._subscribers.discard(queue)
                queue.get_nowait()
                queue.put_nowait(None)


def image_contents(data_urls: list[str]) -> tuple[ImageContent, ...]:
    """Pasted or dropped images (`data:image/png;base64,...`) as message content."""
    images: list[ImageContent] = []
    for url in data_urls:
        head, _, data = url.partition(",")
        media = head.removeprefix("data:").removesuffix(";base64")
        if not media.startswith("image/") or not head.endswith(";base64"):
            raise BadAnswer("images must be base64 data URLs")
        base64.b64decode(data, validate=True)
        images.append(ImageContent(media, data))
    return tuple(images)


@dataclass
class WebSession:
    """The tasks of one `pycline ui` server, all in one workspace."""

    controller: Controller
    cwd: Path
    home: Path
    flags: ModelConfig = field(
        default_factory=ModelConfig
    )  # --provider/--model/... given to `pycline ui`
    profile: str | None = None
    tasks: dict[str, WebTask] = field(default_factory=dict)
    changed: asyncio.Event = field(default_factory=asyncio.Event)  # the task list changed

    async def new_task(
        self, text: str, *, images: list[str] | None = None, mode: str = "act"
    ) -> WebTask:
        from pycline.app.task_settings import task_settings

        pictures = image_contents(images or [])
        handle = WebTask(text=text)
        settings = task_settings(self.home, headless=False, mode=mode, workspace=self.cwd)
        task = self.controller.new_task(text, handle, self.cwd, settings)
        handle.id, handle.task = task.id, task
        self._start(handle, task.start(text, pictures))
        return handle

    async def resume_task(self, task_id: str, *, mode: str = "act") -> WebTask:
        from pycline.app.task_settings import task_settings

        running = self.tasks.get(task_id)
        if running is not None and running.runner is not None and not running.runner.done():
            return running
        handle = WebTask(id=task_id)
        settings = task_settings(self.home, headless=False, mode=mode, workspace=self.cwd)
        task, run = self.controller.resume_task(task_id, handle, self.cwd, settings)
        handle.text, handle.task = task.record.task, task
        # What happened before this run, so the page shows the whole task.
        for item in saved_events(task_id, task.ui.messages):
            handle.log.append({**item, "seq": len(handle.log)})
        self._start(handle, run())
        return handle

    def reload_models(self) -> None:
        """After the settings changed: new tasks use the model chosen there (flags still win)."""
        from pycline.app.config import resolve, resolve_plan

        config = resolve(self.flags, self.home, workspace=self.cwd, profile=self.profile)
        self.controller.config = config
        self.controller.plan_config = resolve_plan(
            self.flags, self.home, config, workspace=self.cwd, profile=self.profile
        )

    def get(self, task_id: str) -> WebTask | None:
        return self.tasks.get(task_id)

    def _start(self, handle: WebTask, work: Any) -> None:
        self.tasks[handle.id] = handle
        handle.runner = asyncio.create_task(self._run(handle, work), name=f"task-{handle.id}")
        self.changed.set()

    async def _run(self, handle: WebTask, work: Any) -> TaskOutcome:
        try:
            outcome: TaskOutcome = await work
            return outcome
        except asyncio.CancelledError:
            return TaskOutcome(False, "The task was cancelled.")
        except PyclineError as exc:
            handle.status = "failed"
            handle._emit(handle._wire("error", text=str(exc)))
            handle._emit_status()
            return TaskOutcome(False, str(exc))
        finally:
            self.changed.set()

    async def stop(self, task_id: str) -> None:
        """Cancel the task if it runs, and wait until it has saved itself."""
        handle = self.tasks.get(task_id)
        if handle is None or handle.runner is None or handle.runner.done():
            return
        handle.cancel()
        await asyncio.wait([handle.runner], timeout=30)

    async def close(self) -> None:
        """Stop every running task (each saves itself as it is cancelled)."""
        running = [t.runner for t in self.tasks.values() if t.runner and not t.runner.done()]
        for runner in running:
            runner.cancel()
        if running:
            await asyncio.wait(running, timeout=30)
        await self.controller.close()
