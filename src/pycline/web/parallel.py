"""The Parallel Tasks screen's API: what `pycline tasks`, `run --bg`, `stop`, `attach` (answering)
and `pycline worktree list|show|diff|merge|discard` offer in the terminal, as JSON. The board
lists background tasks and the live tasks of other terminals, web UIs and editors."""

from __future__ import annotations

import asyncio
import os
import sys
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

from aiohttp import web

from pycline.errors import PyclineError
from pycline.event_wire import WireError, question_from_json
from pycline.events import Answer
from pycline.web.api import fail, json_body
from pycline.web.tasks import WebSession, session_of
from pycline.web.wire import labels_for

if TYPE_CHECKING:
    from pycline.app.services.worktrees import FinishChoice

START_TIMEOUT = 60.0


def _board(session: WebSession) -> list[dict[str, Any]]:
    from pycline.app.background import state as bg_state
    from pycline.app.background.board import board

    rows = []
    for entry in reversed(board(session.home)):  # newest first
        row = asdict(entry)
        if entry.front_end != "background" and entry.pid == os.getpid():
            # This server's own, listed as `pycline tasks` lists it; its questions are answered
            # on its tab, which the row shows.
            rows.append({**row, "here": True})
            continue
        saved = bg_state.load(session.home, entry.id) if entry.status == "waiting" else None
        asked = saved.question if saved is not None else None
        if asked:
            question = asked.get("question") or {}
            row["ask"] = {
                "question_id": asked.get("question_id"),
                "kind": question.get("kind"),
                # What an approval is about: the diff of an edit, the command to run.
                "tool": question.get("tool"),
                "preview": question.get("preview"),
                "options": _options(question),
            }
        rows.append(row)
    return rows


def _options(question: dict[str, Any]) -> list[dict[str, Any]]:
    """The question's options with Cline's labels, as the chat shows them (Save for an edit)."""
    try:
        labels = labels_for(question_from_json(question))
    except WireError:  # a question this build cannot read: its own labels
        labels = {}
    return [
        {"id": o.get("id"), "label": labels.get(str(o.get("id")), o.get("label"))}
        for o in question.get("options") or []
        if isinstance(o, dict)
    ]


def _run_argv(session: WebSession, text: str) -> tuple[list[str], dict[str, str]]:
    """`pycline run --bg` with this server's model choices (a key goes in the environment)."""
    from pycline.app.settings.config import KEY_ENV

    o = session.overrides
    argv = [sys.executable, "-m", "pycline", "run", "--bg", "--cwd", str(session.cwd)]
    for flag, value in (
        ("--provider", o.provider),
        ("--model", o.model),
        ("--base-url", o.base_url),
        ("--script", o.script),
        ("--profile", o.profile),
    ):
        if value:
            argv += [flag, value]
    env = dict(os.environ)
    if o.api_key and o.provider and (name := KEY_ENV.get(o.provider)):
        env[name] = o.api_key
    return [*argv, "--", text], env


async def start_background(session: WebSession, text: str) -> str:
    argv, env = _run_argv(session, text)
    proc = await asyncio.create_subprocess_exec(
        *argv,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=env,
    )
    try:
        out, err = await asyncio.wait_for(proc.communicate(), START_TIMEOUT)
    except TimeoutError:
        proc.kill()
        await proc.wait()
        raise PyclineError("the background task did not start in time") from None
    if proc.returncode != 0:
        why = err.decode(errors="replace").strip().splitlines()
        raise PyclineError(why[-1] if why else "the background task did not start")
    return out.decode().strip().splitlines()[-1]


def _changes(changes: Any) -> dict[str, Any]:
    return {"commits": changes.commits, "files": [asdict(f) for f in changes.files]}


ROUTES = web.RouteTableDef()


@ROUTES.get("/api/background")
async def background(request: web.Request) -> web.Response:
    return web.json_response(await asyncio.to_thread(_board, session_of(request)))


@ROUTES.post("/api/background")
async def start(request: web.Request) -> web.Response:
    text = str((await json_body(request)).get("task", "")).strip()
    if not text:
        return fail(ValueError("a task needs some text"))
    try:
        bg_id = await start_background(session_of(request), text)
    except PyclineError as exc:
        return fail(exc)
    return web.json_response({"id": bg_id})


@ROUTES.post("/api/background/{id}/stop")
async def stop(request: web.Request) -> web.Response:
    from pycline.app.background import client

    try:
        said = await client.stop(session_of(request).home, request.match_info["id"])
    except PyclineError as exc:
        return fail(exc, 404)
    return web.json_response({"message": said})


@ROUTES.post("/api/background/{id}/answer")
async def answer(request: web.Request) -> web.Response:
    from pycline.app.background import client
    from pycline.app.background.paths import valid_id

    body = await json_body(request)
    bg_id = request.match_info["id"]
    option, text = body.get("option") or "", body.get("text") or ""
    if not valid_id(bg_id) or not isinstance(option, str) or not isinstance(text, str):
        return fail(ValueError("an answer is an option id and some text"))
    try:
        await client.answer(
            session_of(request).home,
            bg_id,
            str(body.get("question_id", "")),
            Answer(option, text),
        )
    except PyclineError as exc:
        return fail(exc, 409)
    return web.json_response({"ok": True})


@ROUTES.get("/api/worktrees")
async def listing(request: web.Request) -> web.Response:
    from pycline.app.services import worktrees

    session = session_of(request)
    try:
        found = await worktrees.list_worktrees(session.cwd, session.home)
    except PyclineError as exc:  # not a git repository: nothing to list, and why
        return web.json_response({"worktrees": [], "error": str(exc)})
    return web.json_response({"worktrees": [asdict(w) for w in found]})


@ROUTES.post("/api/worktrees")
async def create(request: web.Request) -> web.Response:
    from pycline.app.services import worktrees

    session = session_of(request)
    body = await json_body(request)
    name = str(body.get("name") or "").strip() or None
    try:
        info = await worktrees.create(
            session.cwd, session.home, name=name, carry_changes=bool(body.get("carry"))
        )
    except PyclineError as exc:
        return fail(exc)
    return web.json_response(asdict(info))


@ROUTES.post("/api/worktrees/task")
async def worktree_task(request: web.Request) -> web.Response:
    """`pycline --worktree`: a new worktree and branch, and a task running in it."""
    from pycline.app.services import worktrees

    session = session_of(request)
    body = await json_body(request)
    text = str(body.get("task") or "").strip()
    if not text:
        return fail(ValueError("a task needs some text"))
    name = str(body.get("name") or "").strip() or None
    try:
        info = await worktrees.create(
            session.cwd, session.home, name=name, carry_changes=bool(body.get("carry"))
        )
        mode = "plan" if body.get("mode") == "plan" else "act"
        run = await session.new_task(text, mode=mode, worktree=Path(info.path))
    except PyclineError as exc:
        return fail(exc)
    return web.json_response({"task_id": run.handle.id, "worktree": asdict(info)})


@ROUTES.get("/api/worktrees/{name}/changes")
async def changes(request: web.Request) -> web.Response:
    from pycline.app.services import worktrees

    session = session_of(request)
    try:
        info = await worktrees.get(session.cwd, session.home, request.match_info["name"])
        summary = await worktrees.summary(info)
        patch = await worktrees.diff(info)
    except PyclineError as exc:
        return fail(exc, 404)
    return web.json_response({**_changes(summary), "diff": patch})


@ROUTES.post("/api/worktrees/{name}/{choice:merge|discard}")
async def finish(request: web.Request) -> web.Response:
    from pycline.app.services import worktrees

    session = session_of(request)
    name = request.match_info["name"]
    choice: FinishChoice = "merge" if request.match_info["choice"] == "merge" else "discard"
    try:
        info = await worktrees.get(session.cwd, session.home, name)
        report = await worktrees.finish(info, session.home, choice, message=f"pycline: {name}")
    except PyclineError as exc:
        return fail(exc)
    merge = report.merge
    return web.json_response(
        {
            "removed": report.removed,
            "changes": _changes(report.changes),
            "merge": None if merge is None else asdict(merge),
        }
    )
