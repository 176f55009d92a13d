"""Commands into a running task (`TaskHandle.send`): each does what it says, and one the task
cannot carry out is refused with its reason while the task goes on."""

from __future__ import annotations

from pathlib import Path

import pytest

from pycline.app.live.handle import AnswerRejected, CommandRejected, check_answer
from pycline.app.sessions.session import ConfigOverrides, Session, TaskHandle, TaskOptions
from pycline.commands import (
    AnswerQuestion,
    AutoApprove,
    Cancel,
    ProceedWhileRunning,
    SetApprovalPolicy,
    SetGoal,
    SetMode,
    SetModel,
    StopProcess,
    UserMessage,
)
from pycline.core.task import TaskSettings
from pycline.events import (
    ACCEPT,
    Answer,
    ApprovalQuestion,
    CompletionQuestion,
    ErrorEvent,
    FollowupQuestion,
    MistakeLimitQuestion,
    ModeChanged,
    Option,
    QuestionAsked,
    ToolFinished,
)
from pycline.messages import ImageContent
from pycline.providers.scripted import ScriptedProvider
from pycline.testing import complete

PNG = "data:image/png;base64,iVBORw0KGgo="
FOLLOWUP = (
    "<ask_followup_question>\n<question>Which port?</question>\n"
    '<options>["8000", "8080"]</options>\n</ask_followup_question>'
)
WRITE = "<write_to_file>\n<path>a.txt</path>\n<content>\nhello\n</content>\n</write_to_file>"


async def _session(home: Path, root: Path) -> Session:
    root.mkdir()
    return await Session.open(root, home=home, overrides=ConfigOverrides(provider="scripted"))


async def _question(handle: TaskHandle) -> QuestionAsked:
    async for envelope in handle.subscribe():
        if handle.pending_questions:
            return handle.pending_questions[-1]
        del envelope
    raise AssertionError("the task ended without asking")


def _options(provider: ScriptedProvider, *, auto: AutoApprove | None = None) -> TaskOptions:
    settings = TaskSettings(auto_approve=auto or AutoApprove(), max_retries=0)
    return TaskOptions(provider=provider, settings=settings)


# --- answers are checked once, here, for every front end ------------------------------------


def test_text_typed_with_a_click_goes_along_and_a_reply_alone_has_no_option() -> None:
    check_answer(ApprovalQuestion("write_to_file", "w"), Answer("deny", "not that"))
    check_answer(FollowupQuestion("q", (Option("red", "Red"),)), Answer(text="green"))
    check_answer(FollowupQuestion("q"), Answer())  # Enter at a follow-up: an empty reply


def test_edited_content_is_taken_only_for_a_proposed_file() -> None:
    check_answer(
        ApprovalQuestion("write_to_file", "w", content="old"), Answer("approve", "", (), "new")
    )
    with pytest.raises(AnswerRejected):
        check_answer(ApprovalQuestion("execute_command", "c"), Answer("approve", "", (), "x"))


@pytest.mark.parametrize(
    "answer",
    [
        Answer("maybe"),
        Answer(),
        Answer("approve", images=("http://example.com/x.png",)),
        Answer("approve", images=(PNG,) * 21),
    ],
)
def test_answers_that_do_not_fit_the_question_are_refused(answer: Answer) -> None:
    with pytest.raises(AnswerRejected):
        check_answer(ApprovalQuestion("write_to_file", "w"), answer)


# --- commands to a live task ----------------------------------------------------------------


async def test_a_user_message_answers_the_question_the_task_waits_on(
    isolated_home: Path, tmp_path: Path
) -> None:
    session = await _session(isolated_home, tmp_path / "w")
    provider = ScriptedProvider.of(FOLLOWUP, complete())
    async with session:
        handle = await session.new_task("ask me", options=_options(provider))
        asked = await _question(handle)
        assert isinstance(asked.question, FollowupQuestion)
        await handle.send(UserMessage("8081, please", (PNG,)))
        done = await _question(handle)
        assert isinstance(done.question, CompletionQuestion)
        with pytest.raises(AnswerRejected):  # answered once is answered
            await handle.send(AnswerQuestion(asked.question_id, Answer(text="again")))
        await handle.send(AnswerQuestion(done.question_id, Answer(ACCEPT.id)))
        assert (await handle.wait()).completed
    sent = provider.requests[1].messages[-1]
    assert "8081, please" in str(sent.content)
    assert any(isinstance(block, ImageContent) for block in sent.content)


def test_a_message_after_a_run_of_mistakes_is_guidance_to_go_on() -> None:
    from pycline.app.live.handle import _reply

    answer = _reply(MistakeLimitQuestion(3), "use the other file", ())
    assert answer.option == "continue" and answer.text == "use the other file"


async def test_commands_a_task_cannot_carry_out_are_refused_and_it_goes_on(
    isolated_home: Path, tmp_path: Path
) -> None:
    session = await _session(isolated_home, tmp_path / "w")
    async with session:
        handle = await session.new_task("finish", options=_options(ScriptedProvider.of(complete())))
        asked = await _question(handle)
        for command, why in [
            (StopProcess(3), "No background process 3"),
            (SetModel("  "), "Choose a model"),
            (AnswerQuestion("nope", Answer(ACCEPT.id)), "No open question"),
        ]:
            with pytest.raises(CommandRejected, match=why):
                await handle.send(command)
        handle.post(StopProcess(4))  # from code that cannot wait: the refusal is an event
        event = None
        async for envelope in handle.subscribe(replay=False):
            event = envelope.event
            break
        assert isinstance(event, ErrorEvent) and "No background process 4" in event.text
        assert handle.status == "waiting"
        await handle.send(AnswerQuestion(asked.question_id, Answer(ACCEPT.id)))
        assert (await handle.wait()).completed
        with pytest.raises(CommandRejected, match="has ended"):
            await handle.send(SetMode("plan"))
        await handle.send(Cancel())  # nothing to stop: no harm


async def test_mode_model_and_approval_policy_change_from_the_next_step_on(
    isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")  # never used: no plan-mode request follows
    session = await _session(isolated_home, tmp_path / "w")
    provider = ScriptedProvider.of(FOLLOWUP, WRITE, complete())
    async with session:
        handle = await session.new_task("write", options=_options(provider))
        asked = await _question(handle)
        await handle.send(SetMode("plan"))
        assert handle.mode == "plan"
        await handle.send(SetMode("act"))
        act = handle.models()["act"]
        await handle.send(SetModel("openai/gpt-4o-mini", "plan"))
        assert handle.models() == {"act": act, "plan": "openai/gpt-4o-mini"}
        # The edit that follows runs without asking.
        await handle.send(SetApprovalPolicy(AutoApprove(edit_files=True)))
        await handle.send(ProceedWhileRunning())  # no command runs: nothing happens
        await handle.send(AnswerQuestion(asked.question_id, Answer(text="go")))
        done = await _question(handle)
        assert isinstance(done.question, CompletionQuestion)
        await handle.send(AnswerQuestion(done.question_id, Answer(ACCEPT.id)))
        events = [e.event async for e in handle.subscribe()]
    assert [e.mode for e in events if isinstance(e, ModeChanged)][:2] == ["plan", "act"]
    asked_kinds = [e.question.kind for e in events if isinstance(e, QuestionAsked)]
    assert asked_kinds == ["followup", "completion"]  # the write was not asked about
    assert (tmp_path / "w" / "a.txt").read_text(encoding="utf-8") == "hello\n"


async def test_set_goal_holds_the_next_completion_to_the_check(
    isolated_home: Path, tmp_path: Path
) -> None:
    session = await _session(isolated_home, tmp_path / "w")
    provider = ScriptedProvider.of(FOLLOWUP, complete("claimed"), WRITE, complete("now"))
    async with session:
        options = _options(provider, auto=AutoApprove(edit_files=True))
        handle = await session.new_task("write", options=options)
        asked = await _question(handle)
        with pytest.raises(CommandRejected):
            await handle.send(SetGoal("test -f a.txt", -1))
        await handle.send(SetGoal("test -f a.txt", 2))
        await handle.send(AnswerQuestion(asked.question_id, Answer(text="go")))
        done = await _question(handle)  # the first claim was sent back: only the second asks
        assert isinstance(done.question, CompletionQuestion)
        await handle.send(AnswerQuestion(done.question_id, Answer(ACCEPT.id)))
        events = [e.event async for e in handle.subscribe()]
    checks = [e.ok for e in events if isinstance(e, ToolFinished) and e.tool == "verify_goal"]
    assert checks == [False, True]
    record = session.store.open(handle.id).load_record()
    assert record.goal == "test -f a.txt" and record.goal_max_attempts == 2
