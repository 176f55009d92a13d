"""Tasks created before their first prompt (an editor's session is named after its task)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from pycline.app.sessions.session import ConfigOverrides, Session, TaskOptions
from pycline.commands import AnswerQuestion
from pycline.events import ACCEPT, Answer, QuestionAsked, TaskStarted
from pycline.providers.scripted import ScriptedProvider
from pycline.storage.task_store import TaskStore
from pycline.testing import complete

SCRIPTED = ConfigOverrides(provider="scripted")


async def test_a_prepared_task_has_its_id_and_folder_before_it_starts(
    isolated_home: Path, workspace: Path
) -> None:
    provider = ScriptedProvider.of(complete("done"))
    async with (
        asyncio.timeout(30),
        await Session.open(workspace, home=isolated_home, overrides=SCRIPTED) as session,
    ):
        handle = session.prepare_task(options=TaskOptions(provider=provider))
        assert handle.id and not handle.started and session.get(handle.id) is handle
        assert TaskStore(isolated_home).open(handle.id).load_record().task == ""
        session.start_task(handle, "first prompt")
        started: list[TaskStarted] = []
        async for envelope in handle.subscribe():
            if isinstance(envelope.event, TaskStarted):
                started.append(envelope.event)
            if isinstance(envelope.event, QuestionAsked):
                await handle.send(AnswerQuestion(envelope.event.question_id, Answer(ACCEPT.id)))
        assert (await handle.wait()).completed
    assert [s.task_id for s in started] == [handle.id]
    record = TaskStore(isolated_home).open(handle.id).load_record()
    assert record.task == "first prompt"
    assert provider.requests[0].messages[0].text.startswith("<task>\nfirst prompt\n</task>")


async def test_a_prepared_task_never_started_is_removed_when_the_session_closes(
    isolated_home: Path, workspace: Path
) -> None:
    session = await Session.open(workspace, home=isolated_home, overrides=SCRIPTED)
    unused = session.prepare_task(options=TaskOptions(provider=ScriptedProvider.of(complete())))
    await session.close()
    assert TaskStore(isolated_home).index.get(unused.id) is None
    assert not (isolated_home / "tasks" / unused.id).exists()
