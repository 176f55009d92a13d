"""Sessions and task handles: several tasks in one process, each followed by several front ends."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from pycline.app.sessions.session import (
    AnswerRejected,
    ConfigOverrides,
    Session,
    TaskHandle,
    TaskOptions,
)
from pycline.commands import AnswerQuestion
from pycline.events import (
    ACCEPT,
    Answer,
    Envelope,
    FollowupQuestion,
    QuestionAnswered,
    QuestionAsked,
    TaskEnded,
    ToolFinished,
    ToolPartial,
    ToolStarted,
    merge_partial,
)
from pycline.providers.scripted import ScriptedProvider
from pycline.testing import GatedProvider, complete

FOLLOWUP = (
    "Let me ask.\n<ask_followup_question>\n<question>Which port?</question>\n"
    '<options>["8000", "8080"]</options>\n</ask_followup_question>'
)
LONG_PROSE = "B is thinking out loud. " * 40


async def collect(handle: TaskHandle, into: list[Envelope]) -> None:
    async for envelope in handle.subscribe():
        into.append(envelope)


async def open_session(home: Path, root: Path) -> Session:
    root.mkdir()
    return await Session.open(root, home=home, overrides=ConfigOverrides(provider="scripted"))


def assert_one_stream(task_id: str, envelopes: list[Envelope]) -> None:
    assert {e.task_id for e in envelopes} == {task_id}
    assert [e.seq for e in envelopes] == list(range(1, len(envelopes) + 1))
    assert isinstance(envelopes[-1].event, TaskEnded) and envelopes[-1].event.task_id == task_id


async def test_two_sessions_run_two_tasks_whose_events_never_mix(
    isolated_home: Path, tmp_path: Path
) -> None:
    first = await open_session(isolated_home, tmp_path / "a")
    second = await open_session(isolated_home, tmp_path / "b")
    provider_a = ScriptedProvider.of(FOLLOWUP, complete("a done"), chunk_size=5)
    provider_b = GatedProvider(ScriptedProvider.of(LONG_PROSE + complete("b done"), chunk_size=5))
    answered_while_b_streamed: list[bool] = []

    async def answer_a(handle: TaskHandle) -> None:
        # Another coroutine than the ones that follow the stream: it answers through the handle.
        async for envelope in handle.subscribe():
            event = envelope.event
            if isinstance(event, QuestionAsked) and isinstance(event.question, FollowupQuestion):
                answered_while_b_streamed.append(
                    provider_b.streaming.is_set() and not provider_b.gate.is_set()
                )
                await handle.send(
                    AnswerQuestion(event.question_id, Answer(event.question.options[1].id))
                )
            elif isinstance(event, QuestionAsked):
                await handle.send(AnswerQuestion(event.question_id, Answer(ACCEPT.id)))

    async with asyncio.timeout(30):
        handle_a = await first.new_task("task a", options=TaskOptions(provider=provider_a))
        handle_b = await second.new_task("task b", options=TaskOptions(provider=provider_b))
        seen: dict[str, list[list[Envelope]]] = {handle_a.id: [[], []], handle_b.id: [[], []]}
        followers = [
            asyncio.create_task(collect(h, into))
            for h in (handle_a, handle_b)
            for into in seen[h.id]
        ]
        await provider_b.streaming.wait()
        answerer = asyncio.create_task(answer_a(handle_a))
        outcome_a = await handle_a.wait()
        assert handle_b.status == "running" and not handle_b.done  # B is still mid-reply
        provider_b.gate.set()
        [asked] = await _next_question(handle_b)
        await handle_b.send(AnswerQuestion(asked.question_id, Answer(ACCEPT.id)))
        outcome_b = await handle_b.wait()
        await asyncio.gather(*followers, answerer)
    await first.close()
    await second.close()

    assert outcome_a.completed and outcome_b.completed
    assert answered_while_b_streamed == [True]
    assert "<answer>\n8080\n</answer>" in provider_a.requests[1].messages[-1].text
    for handle in (handle_a, handle_b):
        one, two = seen[handle.id]
        assert one == two  # every subscriber sees the same stream
        assert_one_stream(handle.id, one)
        late: list[Envelope] = []
        await collect(handle, late)  # a late subscriber gets the whole task replayed,
        assert without_partials(late) == without_partials(one)
        # where a tool call that streamed in comes once, with all it gained while streaming.
        assert call_params(late) == call_params(one)
        assert len([e for e in late if isinstance(e.event, ToolPartial)]) == len(call_params(one))
    kinds = [e.event.kind for e in seen[handle_a.id][0]]
    assert kinds.index("question_asked") < kinds.index("question_answered")


def without_partials(envelopes: list[Envelope]) -> list[Envelope]:
    return [e for e in envelopes if not isinstance(e.event, ToolPartial)]


def call_params(envelopes: list[Envelope]) -> dict[str, dict[str, str]]:
    """Each streamed call's parameters, its partials applied in order."""
    out: dict[str, dict[str, str]] = {}
    for e in envelopes:
        if isinstance(e.event, ToolPartial):
            out[e.event.tool_call_id] = merge_partial(out.get(e.event.tool_call_id, {}), e.event)
    return out


async def _next_question(handle: TaskHandle) -> list[QuestionAsked]:
    async for envelope in handle.subscribe():
        if handle.pending_questions:
            return handle.pending_questions
        del envelope
    raise AssertionError("the task ended without asking")


async def test_tool_events_share_one_id_from_first_token_to_result(
    isolated_home: Path, tmp_path: Path
) -> None:
    session = await open_session(isolated_home, tmp_path / "w")
    write = (
        "<write_to_file>\n<path>a.txt</path>\n<content>\nhello world\n</content>\n</write_to_file>"
    )
    provider = ScriptedProvider.of(write, complete(), chunk_size=4)
    handle = await session.new_task("write", options=TaskOptions(provider=provider))
    events = []
    async for envelope in handle.subscribe():
        event = envelope.event
        events.append(event)
        if isinstance(event, QuestionAsked):
            option = event.question.options[0].id  # approve the write, accept the result
            await handle.send(AnswerQuestion(event.question_id, Answer(option)))
    await session.close()

    partials = [e for e in events if isinstance(e, ToolPartial) and e.tool == "write_to_file"]
    started = next(e for e in events if isinstance(e, ToolStarted))
    finished = next(e for e in events if isinstance(e, ToolFinished))
    approval = next(e for e in events if isinstance(e, QuestionAsked))
    call_id = partials[0].tool_call_id
    assert call_id and started.tool_call_id == finished.tool_call_id == call_id
    assert approval.question.kind == "approval" and approval.question.tool_call_id == call_id
    params: dict[str, str] = {}
    for partial in partials:
        params = merge_partial(params, partial)
    assert params == {"path": "a.txt", "content": "hello world"}
    assert len(partials) > 2  # the content was shown growing
    assert events.index(partials[-1]) < events.index(started)
    answered = [e for e in events if isinstance(e, QuestionAnswered)]
    assert [a.answer.option for a in answered] == ["approve", "accept"]


async def test_an_answer_must_name_an_open_question_and_an_offered_option(
    isolated_home: Path, tmp_path: Path
) -> None:
    session = await open_session(isolated_home, tmp_path / "w")
    provider = ScriptedProvider.of(complete())
    handle = await session.new_task("finish", options=TaskOptions(provider=provider))
    [asked] = await _next_question(handle)
    assert handle.status == "waiting"
    with pytest.raises(AnswerRejected):
        await handle.send(
            AnswerQuestion(asked.question_id, Answer("approve"))
        )  # not offered by a completion
    with pytest.raises(AnswerRejected):
        await handle.send(AnswerQuestion("no-such-question", Answer(ACCEPT.id)))
    await handle.send(AnswerQuestion(asked.question_id, Answer(ACCEPT.id)))
    with pytest.raises(AnswerRejected):  # answered once is answered
        await handle.send(AnswerQuestion(asked.question_id, Answer(ACCEPT.id)))
    assert (await handle.wait()).completed
    assert handle.status == "completed"
    await session.close()


async def test_closing_the_session_cancels_a_waiting_task_and_saves_it(
    isolated_home: Path, tmp_path: Path
) -> None:
    session = await open_session(isolated_home, tmp_path / "w")
    handle = await session.new_task(
        "finish", options=TaskOptions(provider=ScriptedProvider.of(FOLLOWUP))
    )
    await _next_question(handle)
    await session.close()
    outcome = await handle.wait()
    assert not outcome.completed and handle.status == "cancelled"
    resumed_session = await Session.open(
        tmp_path / "w", home=isolated_home, overrides=ConfigOverrides(provider="scripted")
    )
    again = await resumed_session.resume_task(
        handle.id, options=TaskOptions(provider=ScriptedProvider.of(complete()))
    )
    [asked] = await _next_question(again)
    await again.send(AnswerQuestion(asked.question_id, Answer(ACCEPT.id)))
    assert (await again.wait()).completed and again.id == handle.id
    await resumed_session.close()
