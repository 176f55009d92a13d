"""The aiohttp application: the page and its assets, the JSON API and the task WebSocket."""

from __future__ import annotations

import asyncio
import contextlib
import json
import weakref
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any

from aiohttp import WSCloseCode, WSMsgType, web

from pycline.core.modes import as_mode
from pycline.errors import PyclineError
from pycline.parsing import json_limits
from pycline.parsing.surrogates import clean_json
from pycline.web import admin, api, parallel
from pycline.web.follow_bg import Followed
from pycline.web.security import WS_PROTOCOL, Guard
from pycline.web.tasks import Resend, Run, WebSession
from pycline.web.wire import BadAnswer

SESSION: web.AppKey[WebSession] = web.AppKey("session", WebSession)
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
    api.add_routes(app, lambda request: request.app[SESSION])
    admin.add_routes(app, lambda request: request.app[SESSION])
    parallel.add_routes(app, lambda request: request.app[SESSION])
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
            while message["type"] == "events" and not outbox.empty():
                nxt = outbox.get_nowait()
                if nxt["type"] == "events" and nxt["run"] == message["run"]:
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
    """One action from the page; a reply only for errors and new tasks."""
    try:
        data = clean_json(json_limits.loads(raw))
        if not isinstance(data, dict):
            raise BadAnswer("expected a JSON object")
        task_id = str(data.get("task_id", ""))
        match data.get("type"):
            case "follow_background":
                await followed.follow(str(data.get("bg_id", "")), task_id)
                return {"type": "started", "task_id": task_id, "request": data.get("request")}
            case "answer" if followed.follows(task_id):
                await followed.answer(task_id, data)
                return None
            case "cancel" if followed.follows(task_id):
                await followed.stop(task_id)
                return None
        return await _act(session, data)
    except (BadAnswer, PyclineError, json.JSONDecodeError, ValueError, ConnectionError) as exc:
        return {"type": "error", "text": str(exc), "request": _request_id(raw)}


def _request_id(raw: str) -> Any:
    with contextlib.suppress(ValueError):
        data = json_limits.loads(raw)
        if isinstance(data, dict):
            return clean_json(data.get("request"))
    return None


def _run_of(session: WebSession, data: dict[str, Any]) -> Run:
    run = session.get(str(data.get("task_id", "")))
    if run is None:
        raise BadAnswer("no such running task")
    return run


async def _act(session: WebSession, data: dict[str, Any]) -> dict[str, Any] | None:
    match data.get("type"):
        case "new_task":
            text = str(data.get("text", "")).strip()
            if not text:
                raise BadAnswer("a task needs some text")
            images = data.get("images") or []
            if not isinstance(images, list):
                raise BadAnswer("images must be a list")
            run = await session.new_task(text, images=images, mode=_mode(data))
            return {"type": "started", "task_id": run.handle.id, "request": data.get("request")}
        case "resume_task":
            run = await session.resume_task(str(data.get("task_id", "")), mode=_mode(data))
            return {"type": "started", "task_id": run.handle.id, "request": data.get("request")}
        case "resend":
            edit = Resend.parse(data)
            run = await session.resend(str(data.get("task_id", "")), edit, mode=_mode(data))
            return {"type": "started", "task_id": run.handle.id, "request": data.get("request")}
        case "answer":
            await _run_of(session, data).answer(str(data.get("question_id", "")), data)
        case "cancel":
            _run_of(session, data).handle.cancel()
        case "proceed":
            _run_of(session, data).proceed.set()
        case "compact":
            await _run_of(session, data).handle.compact()
        case "set_mode":
            await _run_of(session, data).handle.set_mode(as_mode(_mode(data)))
        case "set_model":
            run = _run_of(session, data)
            modes = ("act", "plan") if data.get("mode") == "both" else (_mode(data),)
            for mode in modes:
                await run.set_model(
                    mode,
                    str(data.get("provider") or ""),
                    str(data.get("model") or ""),
                    session.home,
                )
            session.changed.set()  # pages learn the task's models from its summary
            return {"type": "done", "request": data.get("request")}
        case other:
            raise BadAnswer(f"unknown action {other!r}")
    return None


def _mode(data: dict[str, Any]) -> str:
    mode = data.get("mode", "act")
    if mode not in ("act", "plan"):
        raise BadAnswer("mode is act or plan")
    return str(mode)
