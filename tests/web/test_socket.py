"""The UI's WebSocket speaks the command codec: a malformed or impossible command is refused with a
reply saying why, and the server keeps serving the page (and its tasks); a task followed from the
page and from a terminal at once shows both the same stream and takes answers from either."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from aiohttp import web

from pycline.app.sessions.session import ConfigOverrides, Session
from pycline.cli.follow import follow
from pycline.events import ACCEPT, Answer, CompletionQuestion, Envelope, Question
from pycline.web.security import Guard
from pycline.web.server import build_app
from pycline.web.tasks import WebSession
from tests.web.conftest import complete, followup
from tests.web.socket_client import page_socket


async def test_malformed_commands_are_refused_and_the_socket_keeps_serving(start_ui) -> None:
    ui = start_ui([followup("Which port?", "8000", "8080"), complete("Port set.")])
    async with page_socket(ui.url) as page:
        await page.next("hello")
        await page.send("{not json")
        assert "not JSON" in (await page.next("rejected"))["error"]
        await page.send({"v": 1, "task_id": "t", "kind": "explode", "request": 1})
        refused = await page.next("rejected")
        assert refused["request"] == 1 and "unknown command kind" in refused["error"]
        await page.send({"v": 1, "task_id": "nope", "kind": "cancel", "request": 2})
        assert "No running task 'nope'" in (await page.next("rejected"))["error"]
        await page.send({"v": 1, "kind": "new_task", "text": 7, "request": 3})
        assert (await page.next("rejected"))["request"] == 3

        await page.send({"v": 1, "kind": "new_task", "text": "Set the port", "request": 4})
        started = await page.next("started")
        task_id = started["task_id"]
        asked = (await page.events_until(task_id, "question_asked"))[-1]
        bad = {"option": "9", "text": "", "images": []}
        answer = {"v": 1, "kind": "answer", "task_id": task_id, "question_id": asked["question_id"]}
        await page.send({**answer, "answer": bad, "request": 5})
        assert "not an option here" in (await page.next("rejected"))["error"]
        await page.send({**answer, "answer": {"option": "2"}, "request": 6})
        assert (await page.next("accepted"))["request"] == 6
        events = await page.events_until(task_id, "question_asked")
        assert events[-1]["question"]["kind"] == "completion"
    assert ui.proc.poll() is None  # still serving


async def test_one_task_followed_by_the_terminal_and_a_page_shows_both_the_same_stream(
    isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    """The page answers the task's question and the terminal its result: each sees the other's
    answer, and both see the same events in the same order."""
    script = tmp_path / "script.json"
    script.write_text(json.dumps([followup("Which port?", "8000", "8080"), complete("Set.")]))
    overrides = ConfigOverrides(provider="scripted", script=str(script))
    session = await Session.open(workspace, home=isolated_home, overrides=overrides)
    web_session = WebSession(session, overrides)
    guard = Guard("127.0.0.1", 0)
    runner = web.AppRunner(build_app(web_session, guard), handle_signals=False)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    guard.port = runner.addresses[0][1]
    terminal = _Terminal()
    try:
        async with page_socket(f"http://127.0.0.1:{guard.port}/#token={guard.token}") as page:
            await page.send({"v": 1, "kind": "new_task", "text": "Set the port", "request": 1})
            task_id = (await page.next("started"))["task_id"]
            run = web_session.get(task_id)
            assert run is not None
            following = asyncio.create_task(follow(run.handle, terminal))
            seen = await page.events_until(task_id, "question_asked")
            command = {"v": 1, "kind": "answer", "task_id": task_id}
            await page.send(
                {**command, "question_id": seen[-1]["question_id"], "answer": {"option": "2"}}
            )
            seen += await page.events_until(task_id, "task_ended")
            await asyncio.wait_for(following, 30)
    finally:
        await web_session.close()
        await runner.cleanup()
    assert [(e["seq"], e["kind"]) for e in seen] == [(e.seq, e.event.kind) for e in terminal.shown]
    answers = [e["answer"]["option"] for e in seen if e["kind"] == "question_answered"]
    assert answers == ["2", "accept"]  # the page's, then the terminal's
    assert terminal.asked == ["followup", "completion"]  # the follow-up was answered meanwhile


class _Terminal:
    """A terminal whose user lets the page answer the follow-up and accepts the result."""

    def __init__(self) -> None:
        self.shown: list[Envelope] = []
        self.asked: list[str] = []

    def show(self, envelope: Envelope) -> None:
        self.shown.append(envelope)

    async def ask(self, question: Question) -> Answer:
        self.asked.append(question.kind)
        if isinstance(question, CompletionQuestion):
            return Answer(ACCEPT.id)
        await asyncio.Event().wait()  # still thinking when the page answers
        raise AssertionError("unreachable")
