"""Messages sent while a task works (`UserMessage` with no question open): queued, shown,
editable and cancellable, delivered after the running tool and before the next model request;
with `interrupt`, the running step stops first."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from pycline.app.live.handle import CommandRejected
from pycline.app.sessions.session import ConfigOverrides, Session, TaskHandle, TaskOptions
from pycline.commands import (
    AnswerQuestion,
    AutoApprove,
    CancelQueued,
    EditQueued,
    UserMessage,
)
from pycline.core.task import TaskSettings
from pycline.events import ACCEPT, Answer, CompletionQuestion, MessagesQueued, ToolStarted
from pycline.messages import Message, TextContent
from pycline.providers.base import Provider
from pycline.providers.scripted import ScriptedProvider
from pycline.testing import complete

WAIT = 60.0  # seconds: generous, for a loaded machine


def _command(command: str) -> str:
    return (
        f"<execute_command>\n<command>{command}</command>\n"
        "<requires_approval>false</requires_approval>\n</execute_command>"
    )


def _text(message: Message) -> str:
    return "\n".join(c.text for c in message.content if isinstance(c, TextContent))


async def _started(handle: TaskHandle) -> None:
    async for envelope in handle.subscribe():
        if isinstance(envelope.event, ToolStarted):
            return
    raise AssertionError("the task ended before its command started")


async def _queued(handle: TaskHandle) -> MessagesQueued:
    async for envelope in handle.subscribe(replay=False):
        if isinstance(envelope.event, MessagesQueued):
            return envelope.event
    raise AssertionError("the task ended")


async def _finish(handle: TaskHandle) -> bool:
    """Accept the task's result when it asks; whether it completed."""
    async for envelope in handle.subscribe():
        del envelope
        for asked in handle.pending_questions:
            if isinstance(asked.question, CompletionQuestion):
                await handle.send(AnswerQuestion(asked.question_id, Answer(ACCEPT.id)))
    return (await handle.wait()).completed


async def _run(home: Path, root: Path, provider: Provider) -> tuple[Session, TaskHandle]:
    root.mkdir()
    session = await Session.open(root, home=home, overrides=ConfigOverrides(provider="scripted"))
    auto = AutoApprove(execute_all_commands=True)
    options = TaskOptions(provider=provider, settings=TaskSettings(auto_approve=auto))
    return session, await session.new_task("work", options=options)


async def test_a_message_sent_during_a_command_reaches_the_next_request_and_not_before(
    isolated_home: Path, tmp_path: Path
) -> None:
    root = tmp_path / "w"
    provider = ScriptedProvider.of(
        _command("while [ ! -f go ]; do sleep 0.05; done; echo finished"), complete()
    )
    session, handle = await _run(isolated_home, root, provider)
    async with session:
        await asyncio.wait_for(_started(handle), WAIT)
        shown = asyncio.ensure_future(_queued(handle))
        await asyncio.sleep(0)
        await handle.send(UserMessage("use tabs"))
        queued = await asyncio.wait_for(shown, WAIT)
        assert [m.text for m in queued.pending] == ["use tabs"]
        first = queued.pending[0].message_id
        await handle.send(EditQueued(first, "use tabs, not spaces"))
        await handle.send(UserMessage("and delete the build"))
        await handle.send(CancelQueued(handle.queued[-1].message_id))
        assert [m.text for m in handle.queued] == ["use tabs, not spaces"]
        assert len(provider.requests) == 1  # nothing goes to the model while the command runs
        (root / "go").write_text("", encoding="utf-8")
        assert await asyncio.wait_for(_finish(handle), WAIT)
    second = _text(provider.requests[1].messages[-1])
    assert "finished" in second and "use tabs, not spaces" in second
    assert second.index("finished") < second.index("use tabs, not spaces")
    assert "delete the build" not in second
    assert "use tabs" not in _text(provider.requests[0].messages[-1])
    delivered = [
        e.event for e in handle._log if isinstance(e.event, MessagesQueued) and e.event.delivered
    ]
    assert [m.text for m in delivered[0].delivered] == ["use tabs, not spaces"]
    assert handle.queued == ()


async def test_interrupt_and_send_stops_the_running_command_and_sends_at_once(
    isolated_home: Path, tmp_path: Path
) -> None:
    provider = ScriptedProvider.of(_command("echo started; sleep 120"), complete())
    session, handle = await _run(isolated_home, tmp_path / "w", provider)
    async with session:
        await asyncio.wait_for(_started(handle), WAIT)
        await handle.send(UserMessage("stop, wrong folder", interrupt=True))
        assert await asyncio.wait_for(_finish(handle), WAIT)
    second = _text(provider.requests[1].messages[-1])
    assert "stop, wrong folder" in second
    assert "interrupted" in second.lower()


async def test_queued_messages_are_checked_and_a_message_no_longer_waiting_is_refused(
    isolated_home: Path, tmp_path: Path
) -> None:
    root = tmp_path / "w"
    provider = ScriptedProvider.of(_command("while [ ! -f go ]; do sleep 0.05; done"), complete())
    session, handle = await _run(isolated_home, root, provider)
    async with session:
        await asyncio.wait_for(_started(handle), WAIT)
        for command, why in [
            (UserMessage("   "), "Type a message"),
            (UserMessage("x", ("http://example.com/a.png",)), "data:image"),
            (EditQueued("m9", "x"), "No such queued message"),
            (CancelQueued("m9"), "No such queued message"),
        ]:
            with pytest.raises(CommandRejected, match=why):
                await handle.send(command)
        await handle.send(UserMessage("one"))
        with pytest.raises(CommandRejected, match="needs some text"):
            await handle.send(EditQueued(handle.queued[0].message_id, " "))
        (root / "go").write_text("", encoding="utf-8")
        assert await asyncio.wait_for(_finish(handle), WAIT)
        with pytest.raises(CommandRejected, match="has ended"):
            await handle.send(UserMessage("too late"))


async def test_interrupt_and_send_while_the_model_thinks_asks_again_with_the_message(
    isolated_home: Path, tmp_path: Path
) -> None:
    from pycline.providers.catalog import lookup
    from pycline.providers.openai_compat import OpenAIProvider
    from tests.fakes.openai_server import FakeOpenAI
    from tests.fakes.server import Stall

    with FakeOpenAI([Stall(), complete()]) as server:
        model = lookup("openai", "gpt-4o")
        provider = OpenAIProvider(api_key="sk-test", model=model, base_url=server.base_url)
        session, handle = await _run(isolated_home, tmp_path / "w", provider)
        async with session:
            async with asyncio.timeout(WAIT):
                while not server.completions:  # the first request is at the model, unanswered
                    await asyncio.sleep(0.02)
            await handle.send(UserMessage("use tabs", interrupt=True))
            assert await asyncio.wait_for(_finish(handle), WAIT)
        messages = server.completions[1].body["messages"]
    assert [m["role"] for m in messages] == ["system", "user"]  # asked again, not twice
    sent = json.dumps(messages[1])
    assert "<task>" in sent and "use tabs" in sent


async def test_messages_queued_when_the_task_asks_for_a_reply_are_the_reply(
    isolated_home: Path, tmp_path: Path
) -> None:
    from pycline.app.live.handle import controls_of
    from pycline.events import ApprovalQuestion, QuestionAnswered

    root = tmp_path / "w"
    root.mkdir()
    session = await Session.open(
        root, home=isolated_home, overrides=ConfigOverrides(provider="scripted")
    )
    async with session:
        handle = session.prepare_task(
            "x", options=TaskOptions(provider=ScriptedProvider.of(complete()))
        )
        steering = controls_of(handle).steering
        steering.add("add tests too")
        steering.add("and a changelog line")
        answer = await handle.ask(CompletionQuestion("done"))
        assert answer.text == "add tests too\n\nand a changelog line" and not answer.option
        assert handle.queued == ()
        said = [e.event for e in handle._log]
        assert isinstance(said[-1], QuestionAnswered)
        assert isinstance(said[-2], MessagesQueued) and len(said[-2].delivered) == 2
        # An approval is the user's to decide: a queued message waits for the next turn.
        steering.add("later")
        asking = asyncio.ensure_future(handle.ask(ApprovalQuestion("execute_command", "ls")))
        await asyncio.sleep(0)
        assert handle.pending_questions and [m.text for m in handle.queued] == ["later"]
        asking.cancel()
