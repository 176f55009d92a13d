"""The recorder: a task's events are its one saved log; a reopened task replays what it showed
live, Cline's files are written from that log, and tasks saved before it still open and resume."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

from pycline.app.services.tasks import Tasks
from pycline.app.sessions.session import ConfigOverrides, Session, TaskHandle, TaskOptions
from pycline.commands import AnswerQuestion
from pycline.core.approval import AutoApprove
from pycline.core.task import TaskSettings
from pycline.events import (
    ACCEPT,
    APPROVE,
    Answer,
    ApprovalQuestion,
    CheckpointCreated,
    Envelope,
    Event,
    QuestionAsked,
    ReasoningDelta,
    TaskStarted,
    TextDelta,
    ToolPartial,
    Usage,
)
from pycline.messages import Message, UiMessage
from pycline.providers.base import ModelInfo, UsageChunk
from pycline.providers.scripted import ScriptedProvider, ScriptedReply
from pycline.storage import event_log
from pycline.storage.records import TaskRecord
from pycline.storage.task_store import TaskStore
from pycline.testing import complete

EDIT = (
    "I will fix the greeting.\n<replace_in_file>\n<path>app.py</path>\n<diff>\n"
    "------- SEARCH\nprint('hello')\n=======\nprint('hello, world')\n+++++++ REPLACE\n"
    "</diff>\n</replace_in_file>"
)


def _provider(*replies: str) -> ScriptedProvider:
    usage = UsageChunk(input_tokens=1_200, output_tokens=80, cache_read_tokens=300)
    provider = ScriptedProvider(
        [ScriptedReply(text=r, usage=usage, reasoning="Thinking it over.") for r in replies],
        chunk_size=7,
    )
    provider.model_info = ModelInfo(id="scripted-model", context_window=128_000)
    return provider


async def _run(home: Path, root: Path, provider: ScriptedProvider) -> tuple[str, list[Envelope]]:
    """A task with one edit the user approves, followed live; its id and what it showed."""
    session = await Session.open(root, home=home, overrides=ConfigOverrides(provider="scripted"))
    asks = TaskSettings(auto_approve=AutoApprove(edit_files=False))
    live: list[Envelope] = []
    try:
        handle = await session.new_task(
            "greet the world", options=TaskOptions(settings=asks, provider=provider)
        )
        async with asyncio.timeout(30):
            await _follow(handle, live)
            assert (await handle.wait()).completed
    finally:
        await session.close()
    return handle.id, live


async def _follow(handle: TaskHandle, into: list[Envelope]) -> None:
    async for envelope in handle.subscribe():
        into.append(envelope)
        event = envelope.event
        if isinstance(event, QuestionAsked):
            chosen = APPROVE if isinstance(event.question, ApprovalQuestion) else ACCEPT
            await handle.send(AnswerQuestion(event.question_id, Answer(chosen.id)))


def _kept(events: list[Envelope]) -> list[Event]:
    """What a replay holds of a live stream: streamed text and parameters are kept whole by the
    events that end them; streamed reasoning comes joined."""
    out: list[Event] = []
    for e in events:
        event = e.event
        if isinstance(event, TextDelta | ToolPartial):
            continue
        if isinstance(event, ReasoningDelta) and out and isinstance(out[-1], ReasoningDelta):
            out[-1] = ReasoningDelta(out[-1].text + event.text)
            continue
        out.append(event)
    return out


async def test_a_reopened_task_replays_the_events_it_showed_live(
    isolated_home: Path, tmp_path: Path
) -> None:
    root = tmp_path / "project"
    root.mkdir()
    (root / "app.py").write_text("print('hello')\n", encoding="utf-8")
    task_id, live = await _run(isolated_home, root, _provider(EDIT, complete("Greeting fixed.")))

    saved = await Tasks(isolated_home).transcript(task_id)
    assert [e.seq for e in saved] == list(range(1, len(saved) + 1))
    assert [e.event for e in saved] == _kept(live)
    # What the history view draws from: the edit's diff as it was asked, the context bar.
    (asked,) = [
        e.event.question
        for e in saved
        if isinstance(e.event, QuestionAsked) and isinstance(e.event.question, ApprovalQuestion)
    ]
    assert "-print('hello')" in asked.preview and "+print('hello, world')" in asked.preview
    last = [e.event for e in saved if isinstance(e.event, Usage)][-1]
    assert last.context_tokens > 0 and last.context_window == 128_000


async def test_clines_ui_log_is_written_from_the_event_log(
    isolated_home: Path, tmp_path: Path
) -> None:
    root = tmp_path / "project"
    root.mkdir()
    (root / "app.py").write_text("print('hello')\n", encoding="utf-8")
    task_id, live = await _run(isolated_home, root, _provider(EDIT, complete("Greeting fixed.")))
    folder = TaskStore(isolated_home).open(task_id)
    ui = json.loads((folder.path / "ui_messages.json").read_text(encoding="utf-8"))
    kinds = [(m["type"], m.get("say") or m.get("ask")) for m in ui]
    assert kinds[:2] == [("say", "task"), ("say", "checkpoint_created")]
    assert ("ask", "tool") in kinds and ("say", "reasoning") in kinds
    asked = next(m for m in ui if m.get("ask") == "tool")
    assert "+print('hello, world')" in json.loads(asked["text"])["preview"]
    commits = [e.event.commit for e in live if isinstance(e.event, CheckpointCreated)]
    made = [m for m in ui if m.get("say") == "checkpoint_created"]
    assert [m["lastCheckpointHash"] for m in made] == commits
    # The edit's checkpoint follows its turn and names the model's reply it follows.
    edit = next(i for i, m in enumerate(ui) if m.get("say") == "tool")
    after = next(i for i, m in enumerate(ui) if m in made and m["lastCheckpointHash"] == commits[1])
    assert ui[after - 1]["say"] == "tool_result" and after > edit
    assert ui[after]["conversationHistoryIndex"] == 1
    assert ui[edit]["lastCheckpointHash"] == commits[1]
    assert folder.load_ui_messages() == [UiMessage.from_json(m) for m in ui]


def _legacy_task(home: Path, root: Path) -> str:
    """A folder as an earlier pycline left it: Cline's files only, no event log."""
    folder = TaskStore(home).create()
    record = TaskRecord(id=folder.id, ts=time.time() - 60, task="old task", workspace=str(root))
    record.status = "cancelled"
    folder.save_record(record)
    folder.save_api_history(
        [Message.user("<task>\nold task\n</task>", ts=1.0), Message.assistant("Looking.", ts=2.0)]
    )
    usage = {"tokensIn": 900, "tokensOut": 40, "cacheWrites": 0, "cacheReads": 0, "cost": 0.01}
    folder.save_ui_messages(
        [
            UiMessage(1.0, "say", "task", "old task"),
            UiMessage(2.0, "say", "text", "Looking."),
            UiMessage(3.0, "say", "api_req_started", json.dumps(usage)),
            UiMessage(4.0, "ask", "followup", json.dumps({"question": "Which?", "options": ["a"]})),
            UiMessage(5.0, "say", "user_feedback", "a", extra={"option": "1"}),
        ]
    )
    return folder.id


async def test_a_task_saved_before_the_event_log_opens_and_resumes(
    isolated_home: Path, tmp_path: Path
) -> None:
    root = tmp_path / "project"
    root.mkdir()
    task_id = _legacy_task(isolated_home, root)
    before = await Tasks(isolated_home).transcript(task_id)
    assert [e.event.kind for e in before] == [
        "task_started",
        "text_done",
        "usage",
        "question_asked",
        "question_answered",
    ]
    usage = before[2].event
    assert isinstance(usage, Usage) and usage.context_tokens == 940

    session = await Session.open(
        root, home=isolated_home, overrides=ConfigOverrides(provider="scripted")
    )
    try:
        handle = await session.resume_task(
            task_id, message="go on", options=TaskOptions(provider=_provider(complete("Done.")))
        )
        async with asyncio.timeout(30):
            await _follow(handle, [])
            assert (await handle.wait()).completed
    finally:
        await session.close()

    after = await Tasks(isolated_home).transcript(task_id)
    assert [e.event for e in after[: len(before)]] == [e.event for e in before]
    resumed = after[len(before)].event
    assert isinstance(resumed, TaskStarted) and resumed.resumed and resumed.message == "go on"
    folder = TaskStore(isolated_home).open(task_id)
    ui = folder.load_ui_messages()
    assert [m.text for m in ui[:5]] == ["old task", "Looking.", ui[2].text, ui[3].text, "a"]
    assert [(m.kind, m.text) for m in ui[5:7]] == [
        ("resume_task", "old task"),
        ("user_feedback", "go on"),
    ]
    assert event_log.base_count(event_log.read(folder.events_path)) == 5


def test_a_line_torn_by_a_kill_costs_only_itself(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    first = Envelope("t", 1, 1.0, TaskStarted("t", "x", "/w"))
    second = Envelope("t", 2, 2.0, TaskStarted("t", "y", "/w", resumed=True))
    path.write_bytes(event_log.dumps(first) + event_log.dumps(first)[:20])  # killed mid-line
    fd = event_log.open_for_append(path)
    try:
        import os

        os.write(fd, event_log.dumps(second))
    finally:
        os.close(fd)
    assert event_log.read(path) == [first, second]


async def test_restoring_the_task_to_a_checkpoint_cuts_its_log_there(
    isolated_home: Path, tmp_path: Path
) -> None:
    from pycline.app.services.checkpoints import Checkpoints
    from pycline.events import QuestionAnswered, ToolStarted

    root = tmp_path / "project"
    root.mkdir()
    (root / "app.py").write_text("print('hello')\n", encoding="utf-8")
    again = EDIT.replace("print('hello')\n=", "print('hello, world')\n=").replace(
        "print('hello, world')\n+", "print('bye')\n+"
    )
    task_id, live = await _run(isolated_home, root, _provider(EDIT, again, complete("Done.")))
    commits = [e.event.commit for e in live if isinstance(e.event, CheckpointCreated)]
    assert len(commits) == 4  # start, each edit, completion
    restored = await Checkpoints(isolated_home).restore(task_id, commits[1], "task", workspace=root)
    assert restored.conversation is not None

    saved = await Tasks(isolated_home).transcript(task_id)
    events = [e.event for e in saved]
    # Up to the first edit's turn and its checkpoint (made while the next request streamed),
    # then the note that later messages were removed.
    assert [e.summary for e in events if isinstance(e, ToolStarted)] == [
        "replace_in_file for 'app.py'"
    ]
    assert [e.commit for e in events if isinstance(e, CheckpointCreated)] == commits[:2]
    assert sum(isinstance(e, QuestionAnswered) for e in events) == 1
    assert events[-1].kind == "notice" and "restored to a checkpoint" in events[-1].text
    folder = TaskStore(isolated_home).open(task_id)
    ui = folder.load_ui_messages()
    assert [m.kind for m in ui[-2:]] == ["checkpoint_created", "deleted_api_reqs"]
    assert ui[-2].extra["lastCheckpointHash"] == commits[1]
