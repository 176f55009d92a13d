"""The aiohttp application: the page and its assets, the JSON API and the task WebSocket."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import weakref
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any

from aiohttp import WSCloseCode, WSMsgType, web

from pycline.app.live.handle import CommandRejected
from pycline.command_wire import accepted, command_from_json, read_json, rejected, request_of
from pycline.commands import AnswerQuestion, SetModel
from pycline.errors import PyclineError
from pycline.event_wire import WireError
from pycline.web import admin, api, parallel
from pycline.web.follow_bg import Followed
from pycline.web.security import WS_PROTOCOL, Guard
from pycline.web.tasks import SESSION, Run, WebSession
from pycline.web.wire import (
    REQUEST_TYPES,
    BadRequest,
    FollowBackground,
    NewTask,
    Resend,
    ResumeTask,
    page_request,
)

GUARD: web.AppKey[Guard] = web.AppKey("guard", Guard)


class Sockets:
    """The open WebSockets, closed at shutdown: open pages would otherwise hold it up."""

    def __init__(self) -> None:
        self._open: weakref.WeakSet[web.WebSocketResponse] = weakref.WeakSet()

    def add(self, ws: web.WebSocketResponse) -> None:
        self._open.add(ws)

    async def close_all(self, app: web.Application) -> None:
        for ws in list(self._open):
            await ws.close(code=WSCloseCode.GOING_AWAY, message=b"pycline ui stopped")


SOCKETS: web.AppKey[Sockets] = web.AppKey("sockets", Sockets)
MAX_MESSAGE = 32 * 1024 * 1024  # pasted images travel inside answers and new tasks


def static_root() -> Path:
    return Path(str(resources.files("pycline.web") / "static"))


def build_app(session: WebSession, guard: Guard) -> web.Application:
    app = web.Application(middlewares=[guard.middleware], client_max_size=MAX_MESSAGE)
    app[SESSION] = session
    app[GUARD] = guard
    app[SOCKETS] = Sockets()
    app.on_shutdown.append(app[SOCKETS].close_all)
    root = static_root()

    async def index(request: web.Request) -> web.StreamResponse:
        return web.FileResponse(root / "index.html")

    async def login(request: web.Request) -> web.StreamResponse:
        body = await api.json_body(request)
        password = body.get("password")
        session = guard.login(str(body.get("token", "")), password)
        if session is None:
            return web.json_response(
                {
                    "error": "wrong, used or expired token",
                    "needs_password": guard.password is not None,
                },
                status=401,
            )
        return web.json_response({"ok": True, "session": session})

    app.router.add_get("/", index)
    app.router.add_post("/api/login", login)
    app.router.add_get("/ws", websocket)
    app.router.add_static("/static/", root, follow_symlinks=False)
    for routes in (api.ROUTES, admin.ROUTES, parallel.ROUTES):
        app.router.add_routes(routes)
    return app


# --- the WebSocket: every task's events out, the user's actions in -----------------------------


async def websocket(request: web.Request) -> web.StreamResponse:
    session = request.app[SESSION]
    ws = web.WebSocketResponse(heartbeat=30, max_msg_size=MAX_MESSAGE, protocols=(WS_PROTOCOL,))
    await ws.prepare(request)
    request.app[SOCKETS].add(ws)
    outbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    following: dict[str, tuple[Run, Callable[[], None]]] = {}

    def follow(run: Run) -> None:
        def send(batch: list[dict[str, Any]]) -> None:
            outbox.put_nowait(
                {"type": "events", "task_id": run.handle.id, "run": run.id, "events": batch}
            )

        following[run.handle.id] = (run, run.follow(send))

    def tasks_changed() -> None:
        for task_id, run in session.runs.items():
            known = following.get(task_id)
            if known is None or known[0] is not run:  # new, or resumed as a new run
                if known is not None:
                    known[1]()
                follow(run)
        outbox.put_nowait({"type": "tasks", "tasks": [r.summary() for r in session.runs.values()]})

    async def watch() -> None:
        while True:
            session.changed.clear()
            tasks_changed()
            await session.changed.wait()

    async def pump() -> None:
        while True:
            message = await outbox.get()
            # Stream chunks that piled up go out in one message.
            while message.get("type") == "events" and not outbox.empty():
                nxt = outbox.get_nowait()
                if nxt.get("type") == "events" and nxt["run"] == message["run"]:
                    message["events"].extend(nxt["events"])
                    continue
                await ws.send_str(json.dumps(message, ensure_ascii=False))
                message = nxt
            await ws.send_str(json.dumps(message, ensure_ascii=False))

    followed = Followed(outbox.put_nowait, session.home)  # background tasks this page follows
    outbox.put_nowait({"type": "hello", **api.state(session)})
    workers = [asyncio.create_task(watch()), asyncio.create_task(pump())]
    try:
        async for message in ws:
            if message.type != WSMsgType.TEXT:
                continue
            reply = await _handle(session, followed, message.data)
            if reply is not None:
                outbox.put_nowait(reply)
    finally:
        for _, stop in following.values():
            stop()
        await followed.close()
        for worker in workers:
            worker.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.gather(*workers, return_exceptions=True)
    return ws


async def _handle(session: WebSession, followed: Followed, raw: str) -> dict[str, Any] | None:
    """One message from the page: a command to a task (`pycline.command_wire`) or one of the
    page's requests (`pycline.web.wire`). A reply for a request, a refused command, or a
    command that asked for one (its `request` id); anything malformed is refused, never fatal."""
    try:
        data = read_json(raw)
    except WireError as exc:
        return rejected("", str(exc))
    if isinstance(data, dict) and data.get("kind") in REQUEST_TYPES:
        return await _request(session, followed, data)
    return await _command(session, followed, data)


async def _command(session: WebSession, followed: Followed, data: object) -> dict[str, Any] | None:
    task_id = data.get("task_id") if isinstance(data, dict) else None
    task_id = task_id if isinstance(task_id, str) else ""
    try:
        sent = command_from_json(data)
        if isinstance(sent.command, AnswerQuestion):
            sent = dataclasses.replace(
                sent, command=dataclasses.replace(sent.command, by="the web UI")
            )
        if followed.follows(sent.task_id):
            await followed.command(sent)
            return None
        run = session.get(sent.task_id)
        if run is None:
            raise CommandRejected(f"No running task {sent.task_id!r} here.")
        await run.handle.send(sent.command)
    except (WireError, PyclineError, ConnectionError) as exc:
        return rejected(task_id, str(exc), request_of(data))
    if isinstance(sent.command, SetModel):
        session.changed.set()  # pages learn the task's models from its summary
    return accepted(sent.task_id, sent.request) if sent.request is not None else None


async def _request(session: WebSession, followed: Followed, data: dict[str, Any]) -> dict[str, Any]:
    request = data.get("request")
    try:
        match page_request(data):
            case NewTask(text=text, images=images, mode=mode, verify=verify, auto=auto):
                if not text.strip():
                    raise BadRequest("a task needs some text")
                run = await session.new_task(
                    text.strip(), images=images, mode=mode, verify=verify.strip(), auto=auto
                )
                task_id = run.handle.id
            case ResumeTask(task_id=task_id, mode=mode):
                run = await session.resume_task(task_id, mode=mode)
                task_id = run.handle.id
            case Resend() as edit:
                if not edit.text.strip():
                    raise BadRequest("a resent message needs its new text")
                run = await session.resend(edit.task_id, edit, mode=edit.mode)
                task_id = run.handle.id
            case FollowBackground(bg_id=bg_id, task_id=task_id):
                await followed.follow(bg_id, task_id)
    except (WireError, PyclineError, ValueError, ConnectionError) as exc:
        return rejected(str(data.get("task_id") or ""), str(exc), request_of(data))
    return {"type": "started", "task_id": task_id, "request": request}
