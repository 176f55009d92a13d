"""Pictures sent with an answer reach the model in the next user message, as image blocks."""

from __future__ import annotations

import asyncio
import base64
from pathlib import Path

from pycline.app.sessions.session import ConfigOverrides, Session, TaskOptions
from pycline.commands import AnswerQuestion
from pycline.events import ACCEPT, DENY, Answer, FollowupQuestion, QuestionAsked
from pycline.messages import ImageContent, Message
from pycline.providers.scripted import ScriptedProvider
from tests.core.harness import RecordingHost, complete, make_task

PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n-a-picture").decode()
PNG_URL = f"data:image/png;base64,{PNG}"
WRITE = "<write_to_file>\n<path>a.md</path>\n<content>\nx\n</content>\n</write_to_file>"
FOLLOWUP = "<ask_followup_question>\n<question>Which layout?</question>\n</ask_followup_question>"


def images_in(message: Message) -> list[ImageContent]:
    return [c for c in message.content if isinstance(c, ImageContent)]


async def test_feedback_on_a_rejected_edit_carries_its_picture_to_the_model(
    isolated_home: Path, workspace: Path
) -> None:
    host = RecordingHost(answers=[Answer(DENY.id, "like this instead", images=(PNG_URL,))])
    task, provider = make_task(isolated_home, workspace, [WRITE, WRITE, complete()], host)
    assert (await task.start("write")).completed
    sent = provider.requests[1].messages[-1]
    assert images_in(sent) == [ImageContent("image/png", PNG)]
    # After the result it belongs to (and before the environment details, when they are sent).
    kinds = [c.kind for c in sent.content]
    assert kinds.index("image") > 0
    assert "like this instead" in sent.text
    assert images_in(provider.requests[2].messages[-1]) == []  # sent once


async def test_a_follow_up_reply_with_a_picture_reaches_the_model(
    isolated_home: Path, workspace: Path
) -> None:
    host = RecordingHost(answers=[Answer(text="this one", images=(PNG_URL, PNG_URL))])
    task, provider = make_task(isolated_home, workspace, [FOLLOWUP, complete()], host)
    assert (await task.start("x")).completed
    sent = provider.requests[1].messages[-1]
    assert len(images_in(sent)) == 2 and "<answer>\nthis one\n</answer>" in sent.text


async def test_a_picture_alone_as_completion_feedback_continues_the_task(
    isolated_home: Path, workspace: Path
) -> None:
    host = RecordingHost(answers=[Answer(images=(PNG_URL,))])
    task, provider = make_task(isolated_home, workspace, [complete("v1"), complete("v2")], host)
    assert (await task.start("x")).completed
    assert len(provider.requests) == 2
    assert images_in(provider.requests[1].messages[-1]) == [ImageContent("image/png", PNG)]


async def test_an_answer_whose_images_are_not_base64_pictures_sends_none(
    isolated_home: Path, workspace: Path
) -> None:
    bad = ("data:text/plain;base64,aGk=", "data:image/png;base64,%%%", "https://x/y.png")
    host = RecordingHost(answers=[Answer(text="see", images=bad)])
    task, provider = make_task(isolated_home, workspace, [FOLLOWUP, complete()], host)
    assert (await task.start("x")).completed
    assert images_in(provider.requests[1].messages[-1]) == []


async def test_an_answer_given_through_the_handle_sends_its_picture(
    isolated_home: Path, workspace: Path
) -> None:
    provider = ScriptedProvider.of(FOLLOWUP, complete())
    overrides = ConfigOverrides(provider="scripted")
    async with (
        asyncio.timeout(30),
        await Session.open(workspace, home=isolated_home, overrides=overrides) as session,
    ):
        handle = await session.new_task("x", options=TaskOptions(provider=provider))
        async for envelope in handle.subscribe():
            event = envelope.event
            if isinstance(event, QuestionAsked) and isinstance(event.question, FollowupQuestion):
                await handle.send(
                    AnswerQuestion(event.question_id, Answer(text="this", images=(PNG_URL,)))
                )
            elif isinstance(event, QuestionAsked):
                await handle.send(AnswerQuestion(event.question_id, Answer(ACCEPT.id)))
        assert (await handle.wait()).completed
    assert images_in(provider.requests[1].messages[-1]) == [ImageContent("image/png", PNG)]
