"""The web routes in-process, through aiohttp's test client: the guard in front of every route,
then the JSON API a page uses around one finished task (state, files, history, favourite, export,
transcript, delete)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestClient, TestServer

from pycline.app.sessions.session import ConfigOverrides, Session
from pycline.web.security import Guard
from pycline.web.server import build_app
from pycline.web.tasks import WebSession
from tests.web.conftest import complete


@dataclass
class Page:
    client: TestClient[Any, Any]
    origin: str
    session: str
    web: WebSession

    @property
    def headers(self) -> dict[str, str]:
        return {"Origin": self.origin, "Authorization": f"Bearer {self.session}"}

    async def get(self, path: str) -> Any:
        async with self.client.get(path, headers=self.headers) as response:
            assert response.status == 200, await response.text()
            return await response.json()

    async def post(self, path: str, body: dict[str, Any], status: int = 200) -> Any:
        async with self.client.post(path, json=body, headers=self.headers) as response:
            assert response.status == status, await response.text()
            return await response.json()


@pytest.fixture
async def page(isolated_home: Path, workspace: Path, tmp_path: Path) -> AsyncIterator[Page]:
    script = tmp_path / "script.json"
    script.write_text(json.dumps([complete("Port set.")]), encoding="utf-8")
    (workspace / "app.py").write_text("port = 8000\n", encoding="utf-8")
    overrides = ConfigOverrides(provider="scripted", script=str(script))
    session = await Session.open(workspace, home=isolated_home, overrides=overrides)
    web_session = WebSession(session, overrides)
    guard = Guard("127.0.0.1", 0)
    server = TestServer(build_app(web_session, guard), host="127.0.0.1")
    client: TestClient[Any, Any] = TestClient(server)
    await client.start_server()
    guard.port = server.port or 0
    origin = f"http://127.0.0.1:{guard.port}"
    token = guard.token or ""
    async with client.post("/api/login", json={"token": token}, headers={"Origin": origin}) as r:
        assert r.status == 200
        logged_in = (await r.json())["session"]
    try:
        yield Page(client, origin, logged_in, web_session)
    finally:
        await web_session.close()
        await client.close()


async def test_the_guard_stands_before_every_route(page: Page) -> None:
    client = page.client
    async with client.get("/api/state") as r:
        assert r.status == 401  # not logged in
    async with client.get("/api/state", headers={**page.headers, "Host": "evil.test"}) as r:
        assert r.status == 421
    no_origin = {"Authorization": page.headers["Authorization"]}
    async with client.post("/api/history/x/favorite", json={}, headers=no_origin) as r:
        assert r.status == 403
    async with client.post("/api/history/x/favorite", data="x", headers=page.headers) as r:
        assert r.status == 415
    async with client.post("/api/login", json={"token": "used"}, headers=page.headers) as r:
        assert r.status == 401


async def test_state_files_and_commands_describe_the_workspace(page: Page, workspace: Path) -> None:
    state = await page.get("/api/state")
    assert state["workspace"] == str(workspace) and state["tasks"] == []
    assert "scripted" in state["providers"]  # the provider in use, test-only as it is
    assert "app.py" in json.dumps(await page.get("/api/files?q=app"))
    commands = json.dumps(await page.get("/api/commands"))
    assert "newtask" in commands


async def test_a_finished_task_is_kept_favourited_exported_and_deleted(page: Page) -> None:
    protocols = ("pycline", f"pycline-session.{page.session}")
    async with page.client.ws_connect(
        "/ws", headers={"Origin": page.origin}, protocols=protocols
    ) as ws:
        await ws.send_json({"v": 1, "kind": "new_task", "text": "Set the port", "request": 1})
        task_id = ""
        while True:
            message = await ws.receive_json(timeout=30)
            if message.get("type") == "started":
                task_id = message["task_id"]
            events = message.get("events", []) if message.get("task_id") == task_id else []
            asked = [e for e in events if e["kind"] == "question_asked"]
            if asked:
                answer = {"v": 1, "kind": "answer", "task_id": task_id,
                          "question_id": asked[-1]["question_id"], "answer": {"option": "accept"}}  # fmt: skip
                await ws.send_json(answer)
            if any(e["kind"] == "task_ended" for e in events):
                break
    run = page.web.get(task_id)
    assert run is not None
    await run.handle.wait()  # its last event is sent before the task is done with
    (row,) = await page.get("/api/history")
    assert row["id"] == task_id and row["task"] == "Set the port"
    assert await page.post(f"/api/history/{task_id}/favorite", {"favorite": True}) == {"ok": True}
    assert [r["id"] for r in await page.get("/api/history?favorites=1")] == [task_id]
    async with page.client.get(f"/api/history/{task_id}/export", headers=page.headers) as r:
        assert r.status == 200 and r.content_type == "text/markdown"
        assert "Set the port" in await r.text()
    transcript = await page.get(f"/api/history/{task_id}/transcript")
    assert "task_ended" in [e["kind"] for e in transcript]
    assert "error" in await page.post("/api/history/nope/favorite", {"favorite": True}, 404)
    assert await page.post(f"/api/history/{task_id}/delete", {}) == {"ok": True}
    assert await page.get("/api/history") == []


async def test_settings_files_are_validated_and_a_project_may_not_widen_them(page: Page) -> None:
    assert "workspace" in await page.post("/api/settings/file", {"file": {"maxRetries": 2}})
    assert (await page.get("/api/settings/file"))["file"] == {"maxRetries": 2}
    refused = await page.post("/api/settings/file", {"file": {"maxRetries": 99}}, 400)
    assert "maxRetries" in refused["error"]
    widened = {"scope": "project", "file": {"autoApprove": {"yolo": True}}}
    assert "error" in await page.post("/api/settings/file", widened, 400)
    assert (await page.get("/api/settings/file?scope=project"))["file"] == {}


async def test_the_parallel_screens_answer_outside_a_repository(page: Page) -> None:
    board = await page.get("/api/background")
    assert isinstance(board, dict | list)
    worktrees = await page.get("/api/worktrees")
    assert worktrees["worktrees"] == [] and "git" in worktrees["error"].lower()
