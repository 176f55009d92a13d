"""Sub-agents as session tasks: each child behind its own handle, its progress and cost in the
parent's stream and record, cancelled with the parent."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Sequence
from pathlib import Path

import pytest

from pycline.app.sessions.session import ConfigOverrides, Session, TaskHandle, TaskOptions
from pycline.commands import AnswerQuestion, Cancel
from pycline.events import (
    ACCEPT,
    Answer,
    CompletionQuestion,
    Envelope,
    QuestionAsked,
    SubagentProgress,
    TaskEnded,
    ToolStarted,
    Usage,
)
from pycline.messages import Message
from pycline.parsing.native import ToolDefinition
from pycline.providers.base import ModelInfo, StreamChunk, UsageChunk
from pycline.providers.scripted import ScriptedProvider, ScriptedReply
from pycline.storage.task_store import TaskStore
from pycline.testing import complete

PRICED = ModelInfo(id="scripted", context_window=200_000, input_price=1.0, output_price=2.0)
USAGE = UsageChunk(input_tokens=1_000, output_tokens=100)  # $0.0012 a request
SPAWN = (
    "<use_subagents>\n<prompt_1>What is in a.txt?</prompt_1>\n"
    "<prompt_2>What is in b.txt?</prompt_2>\n</use_subagents>"
)


def _read(path: str) -> ScriptedReply:
    return ScriptedReply(text=f"<read_file>\n<path>{path}</path>\n</read_file>", usage=USAGE)


def _done(result: str) -> ScriptedReply:
    return ScriptedReply(text=complete(result), usage=USAGE)


class RoutedProvider:
    """One script per conversation, chosen by a word of its task, so parallel children get
    their own replies whatever the order of their requests. A script of None blocks (until
    cancelled), after setting `blocked`."""

    name = "scripted"
    model = PRICED

    def __init__(self, routes: dict[str, list[ScriptedReply] | None]) -> None:
        self._routes = {
            word: ScriptedProvider(replies, model_info=PRICED) if replies is not None else None
            for word, replies in routes.items()
        }
        self.blocked: asyncio.Queue[str] = asyncio.Queue()

    async def stream(
        self,
        system: str,
        messages: Sequence[Message],
        *,
        tools: Sequence[ToolDefinition] = (),
        temperature: float | None = None,
    ) -> AsyncIterator[StreamChunk]:
        first = messages[0].text
        word = next(w for w in self._routes if w in first)
        inner = self._routes[word]
        if inner is None:
            await self.blocked.put(word)
            await asyncio.Event().wait()  # never set: only cancellation ends this request
            return
        async for chunk in inner.stream(system, messages, tools=tools, temperature=temperature):
            yield chunk


async def _session(home: Path, root: Path) -> Session:
    root.mkdir()
    (root / "a.txt").write_text("alpha\n", encoding="utf-8")
    (root / "b.txt").write_text("beta\n", encoding="utf-8")
    (home / "settings").mkdir(parents=True, exist_ok=True)
    settings = {"subagentsEnabled": True, "enableCheckpoints": False}
    (home / "settings" / "settings.json").write_text(json.dumps(settings), encoding="utf-8")
    return await Session.open(root, home=home, overrides=ConfigOverrides(provider="scripted"))


async def _follow(handle: TaskHandle, into: list[Envelope]) -> None:
    """Keep every event; accept the completion."""
    async for envelope in handle.subscribe():
        into.append(envelope)
        event = envelope.event
        if isinstance(event, QuestionAsked) and isinstance(event.question, CompletionQuestion):
            await handle.send(AnswerQuestion(event.question_id, Answer(ACCEPT.id)))


async def test_each_subagent_is_a_session_task_whose_progress_and_cost_reach_the_parent(
    isolated_home: Path, tmp_path: Path
) -> None:
    provider = RoutedProvider(
        {
            "a.txt?": [_read("a.txt"), _done("alpha is in a.txt")],
            "b.txt?": [_read("b.txt"), _done("beta is in b.txt")],
            "research": [ScriptedReply(text=SPAWN, usage=USAGE), _done("both found")],
        }
    )
    seen: list[Envelope] = []
    async with asyncio.timeout(30):
        session = await _session(isolated_home, tmp_path / "ws")
        async with session:
            parent = await session.new_task("research", options=TaskOptions(provider=provider))
            follower = asyncio.create_task(_follow(parent, seen))
            outcome = await parent.wait()
            await follower
            assert outcome.completed, outcome.reason
            children = parent.children
            assert len(children) == 2 and all(c.done for c in children)
            assert [session.get(c.id) for c in children] == children
            child_events = [[e.event async for e in c.subscribe()] for c in children]

    progress = [e.event for e in seen if isinstance(e.event, SubagentProgress)]
    for child, events in zip(children, child_events, strict=True):
        mine = [p for p in progress if p.child_task_id == child.id]
        assert mine[0].status == "running" and mine[0].latest_tool == ""
        assert any(p.latest_tool.startswith("read_file") for p in mine)
        assert mine[-1].status == "completed" and mine[-1].tool_calls == 2  # the read, the report
        # Two requests of $0.0012 each, counted for the sub-agent itself...
        assert mine[-1].cost == pytest.approx(0.0024)
        assert [e for e in events if isinstance(e, Usage)][-1].task_cost == pytest.approx(0.0024)
        # ...and its own stream is there for a front end to follow.
        assert any(isinstance(e, ToolStarted) for e in events)
        assert isinstance(events[-1], TaskEnded) and events[-1].completed
    # The parent's two requests plus its children's four.
    record = TaskStore(isolated_home).open(parent.id).load_record()
    assert record.total_cost == pytest.approx(0.0072)
    assert record.tokens_in == 6_000


async def test_cancelling_the_parent_cancels_its_running_subagents(
    isolated_home: Path, tmp_path: Path
) -> None:
    provider = RoutedProvider(
        {"a.txt?": None, "b.txt?": None, "research": [ScriptedReply(text=SPAWN, usage=USAGE)]}
    )
    async with asyncio.timeout(30):
        session = await _session(isolated_home, tmp_path / "ws")
        async with session:
            parent = await session.new_task("research", options=TaskOptions(provider=provider))
            blocked = {await provider.blocked.get(), await provider.blocked.get()}
            assert blocked == {"a.txt?", "b.txt?"}  # both children are mid-request
            children = list(parent.children)
            await parent.send(Cancel())
            outcome = await parent.wait()
            assert not outcome.completed
            for child in children:
                await child.wait()
            assert [c.status for c in children] == ["cancelled", "cancelled"]
            ends = [[e.event async for e in c.subscribe()][-1] for c in children]
            assert all(isinstance(e, TaskEnded) and not e.completed for e in ends)
