"""The JSON API beside the WebSocket: state, history, checkpoints, the @ menu's file search."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from aiohttp import web

from pycline.app.services.checkpoints import CheckpointError
from pycline.app.services.slash_commands import registry
from pycline.app.services.tasks import Tasks
from pycline.command_wire import WireError, read_json
from pycline.commands import StopProcess
from pycline.errors import PyclineError
from pycline.web import usecases
from pycline.web.tasks import WebSession, session_of
from pycline.web.transcript import saved_events

TEST_ONLY_PROVIDERS = frozenset({"scripted"})


def offered_providers(*in_use: str | None) -> list[str]:
    """The providers a person picks from: the real ones, and any test-only one already in use
    (so a screen never claims another provider than the one set)."""
    from pycline.app.settings.settings_model import PROVIDERS

    return [p for p in PROVIDERS if p not in TEST_ONLY_PROVIDERS or p in in_use]


def state(session: WebSession) -> dict[str, Any]:
    config = session.session.config
    plan = session.session.plan_config or config
    from pycline.app.services.tool_catalogue import catalogue_json

    return {
        "workspace": str(session.cwd),
        "providers": offered_providers(config.provider, plan.provider),
        "models": {
            "act": f"{config.provider}/{config.model}",
            "plan": f"{plan.provider}/{plan.model}",
        },
        "tasks": [r.summary() for r in session.runs.values()],
        "tools": catalogue_json(),
    }


def _ok(data: Any) -> web.Response:
    return web.json_response(data, dumps=lambda d: json.dumps(d, ensure_ascii=False))


def fail(exc: Exception, status: int = 400) -> web.Response:
    return web.json_response({"error": str(exc)}, status=status)


async def json_body(request: web.Request) -> dict[str, Any]:
    try:
        data = read_json(await request.read())
    except WireError:  # not JSON, not UTF-8, or nested without end
        data = None
    if not isinstance(data, dict):
        raise web.HTTPBadRequest(text="expected a JSON object")
    return data


def _busy(session: WebSession, task_id: str) -> bool:
    """The task is working (not waiting for an answer, not ended)."""
    run = session.get(task_id)
    return run is not None and not run.handle.done and run.handle.status == "running"


ROUTES = web.RouteTableDef()


@ROUTES.get("/api/state")
async def get_state(request: web.Request) -> web.Response:
    return _ok(state(session_of(request)))


@ROUTES.get("/api/history")
async def get_history(request: web.Request) -> web.Response:
    session = session_of(request)
    q = request.query
    rows = usecases.history(
        session.home,
        search=q.get("search", ""),
        sort=q.get("sort", "newest"),
        workspace=str(session.cwd) if q.get("workspace") == "1" else None,
        favorites_only=q.get("favorites") == "1",
    )
    return _ok(rows)


@ROUTES.post("/api/history/{id}/favorite")
async def favorite(request: web.Request) -> web.Response:
    session = session_of(request)
    body = await json_body(request)
    try:
        usecases.favorite(session.home, request.match_info["id"], bool(body.get("favorite")))
    except PyclineError as exc:
        return fail(exc, 404)
    return _ok({"ok": True})


@ROUTES.post("/api/history/{id}/delete")
async def delete(request: web.Request) -> web.Response:
    session = session_of(request)
    task_id = request.match_info["id"]
    running = session.get(task_id)
    if running is not None and not running.handle.done:
        return fail(ValueError("the task is running; cancel it first"), 409)
    try:
        await usecases.delete(session.home, task_id)
    except PyclineError as exc:
        return fail(exc, 404)
    session.runs.pop(task_id, None)
    session.changed.set()
    return _ok({"ok": True})


@ROUTES.get("/api/history/{id}/export")
async def export(request: web.Request) -> web.StreamResponse:
    task_id = request.match_info["id"]
    try:
        session = session_of(request)
        text = await asyncio.to_thread(usecases.export, session.home, task_id, session.cwd)
    except PyclineError as exc:
        return fail(exc, 404)
    return web.Response(
        text=text,
        content_type="text/markdown",
        headers={"Content-Disposition": f'attachment; filename="task-{task_id}.md"'},
    )


@ROUTES.get("/api/history/{id}/transcript")
async def transcript(request: web.Request) -> web.Response:
    task_id = request.match_info["id"]
    try:
        events = await Tasks(session_of(request).home).transcript(task_id)
    except PyclineError as exc:
        return fail(exc, 404)
    return _ok(saved_events(events, before_seq=len(events) + 1))


@ROUTES.get("/api/tasks/{id}/checkpoints")
async def checkpoints(request: web.Request) -> web.Response:
    session = session_of(request)
    try:
        return _ok(await usecases.checkpoints(session.home, request.match_info["id"], session.cwd))
    except (PyclineError, CheckpointError) as exc:
        return fail(exc, 404)


@ROUTES.get("/api/tasks/{id}/checkpoints/{commit}/compare")
async def compare(request: web.Request) -> web.Response:
    session = session_of(request)
    match = request.match_info
    try:
        return _ok(await usecases.compare(session.home, match["id"], match["commit"], session.cwd))
    except (PyclineError, CheckpointError) as exc:
        return fail(exc, 404)


@ROUTES.post("/api/tasks/{id}/checkpoints/{commit}/restore")
async def restore(request: web.Request) -> web.Response:
    session = session_of(request)
    task_id = request.match_info["id"]
    mode = (await json_body(request)).get("mode")
    if mode not in ("both", "workspace", "task"):
        return fail(ValueError("mode is both, workspace or task"))
    if mode != "workspace" or _busy(session, task_id):
        # A conversation is rewound only while nothing runs it; files alone are put back
        # under a task that waits for its user (a finished one stays finished).
        await session.stop(task_id)
    try:
        result = await usecases.restore(
            session.home, task_id, request.match_info["commit"], mode, session.cwd
        )
    except (PyclineError, CheckpointError) as exc:
        return fail(exc)
    return _ok(result)


@ROUTES.get("/api/tasks/{id}/processes")
async def processes(request: web.Request) -> web.Response:
    run = session_of(request).get(request.match_info["id"])
    if run is None or run.handle.done:
        return _ok([])
    return _ok(
        [
            {"id": p.id, "command": p.command, "running": p.running, "exit_code": p.exit_code}
            for p in run.handle.processes()
        ]
    )


@ROUTES.post("/api/tasks/{id}/processes/{n}/stop")
async def stop_process(request: web.Request) -> web.Response:
    run = session_of(request).get(request.match_info["id"])
    if run is None or run.handle.done or not request.match_info["n"].isdigit():
        return fail(KeyError("no such process"), 404)
    try:
        await run.handle.send(StopProcess(int(request.match_info["n"])))
    except PyclineError as exc:
        return fail(exc, 404)
    return _ok({"ok": True})


@ROUTES.get("/api/commands")
async def commands(request: web.Request) -> web.Response:
    """The / menu: pycline's and Cline's commands, then the enabled workflows (the
    project's `.clinerules/workflows`, then the user's), as the terminal's /help lists them."""
    session = session_of(request)
    # Workflows are read off the event loop (a slow disk never stalls the other requests).
    found = await asyncio.to_thread(registry, session.cwd, session.home, "web")
    return _ok(usecases.command_menu(found))


@ROUTES.get("/api/files")
async def files(request: web.Request) -> web.Response:
    session = session_of(request)
    query = request.query.get("q", "")
    return _ok(await asyncio.to_thread(usecases.find_files, session.cwd, query))
