"""The tasks of one `pycline ui` server: the session layer's handles, as pages follow them.

Tasks run in the session (`pycline.app.sessions.session`), so closing the browser never stops one; a page
that connects later (a reload, a second tab) gets each task's events replayed, then live ones. A
resumed task is a new run with a new handle: pages learn that from its `run` id and start its
transcript over, beginning with what the task showed before it was resumed.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import time
import uuid
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aiohttp import web

from pycline.app.live.handle import TaskHandle
from pycline.app.services.tasks import Tasks
from pycline.app.sessions.runner import run_chain
from pycline.app.sessions.session import ConfigOverrides, Session, TaskOptions, as_mode
from pycline.commands import Cancel
from pycline.events import Envelope
from pycline.messages import ImageContent
from pycline.web.transcript import saved_events
from pycline.web.wire import BadRequest, Resend, event_json


@dataclass
class Run:
    """One run of a task: its handle, and what was on screen before it (a resumed task)."""

    handle: TaskHandle
    text: str
    before: list[dict[str, Any]] = field(default_factory=list)
    id: str = field(default_factory=lambda: uuid.uuid4().hex[:12])
    next_task: str = ""  # the task this one handed off to (`new_task`)

    def summary(self) -> dict[str, Any]:
        return {
            "id": self.handle.id,
            "run": self.id,
            "task": self.text,
            "status": self.handle.status,
            "mode": self.handle.mode,
            "models": self.handle.models(),
            **({"next": self.next_task} if self.next_task else {}),
        }

    def follow(self, send: Callable[[list[dict[str, Any]]], None]) -> Callable[[], None]:
        """Hand every event to `send` (the task so far first, in one batch); returns `stop`."""
        batch = list(self.before)
        replaying = True

        def listener(envelope: Envelope) -> None:
            item = event_json(envelope)
            if replaying:
                batch.append(item)
            else:
                send([item])

        stop = self.handle.listen(listener, replay=True)
        replaying = False
        if batch:
            send(batch)
        return stop


def image_contents(data_urls: Sequence[str]) -> tuple[ImageContent, ...]:
    """Pasted or dropped images (`data:image/png;base64,...`) as message content."""
    images: list[ImageContent] = []
    for url in data_urls[:20]:
        head, _, data = str(url).partition(",")
        media = head.removeprefix("data:").removesuffix(";base64")
        if not media.startswith("image/") or not head.endswith(";base64"):
            raise BadRequest("images must be base64 data URLs")
        try:
            base64.b64decode(data, validate=True)
        except ValueError:
            raise BadRequest("an image is not valid base64") from None
        images.append(ImageContent(media, data))
    return tuple(images)


@dataclass
class WebSession:
    session: Session
    overrides: ConfigOverrides = field(default_factory=ConfigOverrides)
    runs: dict[str, Run] = field(default_factory=dict)
    changed: asyncio.Event = field(default_factory=asyncio.Event)  # a task started or ended
    # Sessions of the worktree tasks started here, one per worktree folder.
    worktrees: dict[Path, Session] = field(default_factory=dict)
    _chains: set[asyncio.Task[None]] = field(default_factory=set)
    _jobs: set[asyncio.Task[None]] = field(default_factory=set)  # `spawn`'s

    @property
    def home(self) -> Path:
        return self.session.home

    @property
    def cwd(self) -> Path:
        return self.session.workspace

    async def new_task(
        self,
        text: str,
        *,
        images: Sequence[str] = (),
        mode: str = "act",
        worktree: Path | None = None,
        verify: str = "",
        auto: bool = False,
    ) -> Run:
        """A task in the server's folder, or in `worktree` (one of its worktree tasks' folders);
        `verify`: the goal check only whose exit 0 completes it; `auto`: auto (sandboxed) mode."""
        session = self.session if worktree is None else await self._worktree_session(worktree)
        options = TaskOptions(verify=verify, auto=auto) if verify or auto else None
        handle = await session.new_task(
            text, images=image_contents(images), mode=as_mode(mode), options=options
        )
        return self._add(Run(handle, text), session)

    async def _worktree_session(self, folder: Path) -> Session:
        found = self.worktrees.get(folder)
        if found is None:
            found = await Session.open(
                folder, home=self.home, overrides=self.overrides, front_end="web"
            )
            self.worktrees[folder] = found
        return found

    async def _session_of(self, task_id: str) -> Session:
        """A task started in one of this repository's worktrees continues there."""
        from pycline.app.services import worktrees
        from pycline.errors import PyclineError

        try:
            where = Path(Tasks(self.home).record(task_id).workspace)
            known = await worktrees.list_worktrees(self.cwd, self.home)
        except PyclineError:  # not a git repository, or no such task (resume says so)
            return self.session
        for info in known:
            if Path(info.path) == where and where.is_dir():
                return await self._worktree_session(where)
        return self.session

    async def resume_task(self, task_id: str, *, mode: str = "act", message: str = "") -> Run:
        known = self.runs.get(task_id)
        if known is not None and not known.handle.done:
            return known
        session = await self._session_of(task_id)
        resumed_at = time.time()
        handle = await session.resume_task(task_id, mode=as_mode(mode), message=message)
        # What the page showed before this run, from the task's log (the run's own events come
        # after, from seq 1).
        shown = await Tasks(self.home).transcript(task_id, before=resumed_at)
        before = saved_events(shown, before_seq=1)
        return self._add(Run(handle, handle.title, before), session)

    async def resend(self, task_id: str, edit: Resend, *, mode: str = "act") -> Run:
        """An earlier message edited: the conversation goes back to just before it (and the files
        to the checkpoint before it, with "both"); the task continues with the new text."""
        from pycline.web.usecases import restore, rewind_before_message

        if edit.restore == "both" and not edit.commit:
            raise BadRequest("there is no checkpoint before that message to restore the files to")
        await self.stop(task_id)  # a task is rewound only while nothing runs it
        if edit.restore == "both":
            await restore(self.home, task_id, edit.commit, "workspace", self.cwd)
        await asyncio.to_thread(rewind_before_message, self.home, task_id, edit.ts, edit.original)
        return await self.resume_task(task_id, mode=mode, message=edit.text)

    def spawn(self, work: Coroutine[Any, Any, None]) -> asyncio.Task[None]:
        """Run `work` beside the requests (kept until done; its failures show as state, as an
        MCP server's status does)."""
        job = asyncio.get_running_loop().create_task(work)
        self._jobs.add(job)
        job.add_done_callback(self._jobs.discard)
        return job

    def get(self, task_id: str) -> Run | None:
        return self.runs.get(task_id)

    def _add(self, run: Run, session: Session) -> Run:
        self.runs[run.handle.id] = run
        self.changed.set()
        job = asyncio.get_running_loop().create_task(self._chain(run, session))
        self._chains.add(job)
        job.add_done_callback(self._chains.discard)
        return run

    async def _chain(self, run: Run, session: Session) -> None:
        """Follow the run's task to its end, and the tasks it hands off to (as new runs)."""

        def continued(previous: TaskHandle, following: TaskHandle) -> None:
            self.runs[previous.id].next_task = following.id
            self.runs[following.id] = Run(following, following.title)
            self.changed.set()

        async def ended(handle: TaskHandle) -> None:
            with contextlib.suppress(Exception):  # a failure shows in the task's events
                await handle.wait()
            self.changed.set()

        with contextlib.suppress(Exception):  # a failure shows in the task's events
            await run_chain(session, run.handle, follow=ended, continued=continued)
        self.changed.set()

    async def _ended(self, run: Run) -> None:
        with contextlib.suppress(Exception):  # a failure shows in the task's events
            await run.handle.wait()
        self.changed.set()

    async def stop(self, task_id: str) -> None:
        """Cancel the task if it runs, and wait until it has saved itself."""
        run = self.runs.get(task_id)
        if run is None or run.handle.done:
            return
        await run.handle.send(Cancel())
        await asyncio.wait([asyncio.ensure_future(self._ended(run))], timeout=30)

    def reload_models(self) -> None:
        self.session.reconfigure(self.overrides)

    async def close(self) -> None:
        # Work beside the requests (an MCP server still connecting) ends first: it could wait
        # for a server that never answers, and hold up the servers' closing below.
        jobs = list(self._jobs)
        for job in jobs:
            job.cancel()
        if jobs:
            await asyncio.wait(jobs, timeout=10)
        for session in self.worktrees.values():
            await session.close()
        await self.session.close()


SESSION: web.AppKey[WebSession] = web.AppKey("session", WebSession)


def session_of(request: web.Request) -> WebSession:
    """The page's session, which every route serves."""
    return request.app[SESSION]
