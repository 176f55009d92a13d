"""The task loop driven by the scripted provider: tools, approvals, mistakes, completion."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

import pytest

from pycline.core.approval import AutoApprove
from pycline.core.task import TaskSettings
from pycline.errors import ProviderError, ProviderErrorKind
from pycline.events import (
    DENY,
    Answer,
    ApprovalQuestion,
    CompletionQuestion,
    ErrorRetryQuestion,
    FollowupQuestion,
    MistakeLimitQuestion,
)
from pycline.providers.scripted import ScriptedReply
from tests.core.harness import RecordingHost, complete, make_task, no


def write(path: str, content: str) -> str:
    return f"Writing.\n<write_to_file>\n<path>{path}</path>\n<content>\n{content}\n</content>\n</write_to_file>"


async def test_first_message_has_task_and_environment(isolated_home: Path, workspace: Path) -> None:
    (workspace / "a.txt").write_text("x", encoding="utf-8")
    host = RecordingHost()
    task, provider = make_task(isolated_home, workspace, [complete()], host, task_text="say hi")
    outcome = await task.start("say hi")
    assert outcome.completed
    first = provider.requests[0].messages[0]
    assert first.role == "user"
    assert first.text.startswith("<task>\nsay hi\n</task>")
    assert "<environment_details>" in first.text
    assert "a.txt" in first.text  # first request carries the workspace listing
    assert "# Current Mode\nACT MODE" in first.text
    assert "attempt_completion" in provider.requests[0].system


async def test_tool_result_has_cline_header_and_environment_details_only_when_they_change(
    isolated_home: Path, workspace: Path
) -> None:
    (workspace / "notes.md").write_text("hello notes\n", encoding="utf-8")
    host = RecordingHost()
    read = "<read_file>\n<path>notes.md</path>\n</read_file>"
    task, provider = make_task(isolated_home, workspace, [read, read, complete()], host)
    assert (await task.start("read")).completed
    second_user = provider.requests[1].messages[-1]
    assert second_user.text.startswith("[read_file for 'notes.md'] Result:")
    assert "hello notes" in second_user.text
    # Nothing but the time changed since the first request: no second copy of the details.
    assert "<environment_details>" not in second_user.text
    assert "<environment_details>" not in provider.requests[2].messages[-1].text


async def test_write_edit_command_and_complete(isolated_home: Path, workspace: Path) -> None:
    host = RecordingHost()
    replies = [
        write("src/app.py", "print('one')"),
        "<replace_in_file>\n<path>src/app.py</path>\n<diff>\n------- SEARCH\nprint('one')\n=======\nprint('two')\n+++++++ REPLACE\n</diff>\n</replace_in_file>",
        "<execute_command>\n<command>python3 src/app.py > out.txt</command>\n<requires_approval>false</requires_approval>\n</execute_command>",
        complete("all done"),
    ]
    task, _provider = make_task(isolated_home, workspace, replies, host)
    outcome = await task.start("build")
    assert outcome.completed
    assert (workspace / "src" / "app.py").read_text(encoding="utf-8").strip() == "print('two')"
    assert (workspace / "out.txt").read_text(encoding="utf-8").strip() == "two"
    approvals = [q for q in host.questions if isinstance(q, ApprovalQuestion)]
    assert [q.tool for q in approvals] == [
        "write_to_file",
        "replace_in_file",
    ]  # safe command auto-approved
    assert "+print('two')" in approvals[1].preview
    assert isinstance(host.questions[-1], CompletionQuestion)


async def test_rejection_with_feedback_reaches_the_model(
    isolated_home: Path, workspace: Path
) -> None:
    host = RecordingHost(answers=[Answer(DENY.id, "use a .txt name")])
    replies = [write("a.md", "x"), write("a.txt", "x"), complete()]
    task, provider = make_task(isolated_home, workspace, replies, host)
    assert (await task.start("write")).completed
    assert not (workspace / "a.md").exists()
    assert (workspace / "a.txt").exists()
    result = provider.requests[1].messages[-1].text
    assert "denied" in result
    assert "use a .txt name" in result


async def test_no_tool_reply_gets_reminder_and_three_mistakes_ask_user(
    isolated_home: Path, workspace: Path
) -> None:
    host = RecordingHost(default=no)
    task, provider = make_task(isolated_home, workspace, ["hmm", "still thinking", "nope"], host)
    outcome = await task.start("x")
    assert not outcome.completed
    assert "3 mistakes" in outcome.reason
    assert "You did not use a tool" in provider.requests[1].messages[-1].text
    assert isinstance(host.questions[-1], MistakeLimitQuestion)
    record = json.loads((task.folder / "task_metadata.json").read_text(encoding="utf-8"))
    assert record["record"]["status"] == "failed"


async def test_guidance_after_mistakes_continues_the_task(
    isolated_home: Path, workspace: Path
) -> None:
    host = RecordingHost(answers=[Answer(text="just complete it")])
    task, provider = make_task(isolated_home, workspace, ["a", "b", "c", complete()], host)
    assert (await task.start("x")).completed
    assert "just complete it" in provider.requests[3].messages[-1].text


async def test_missing_parameter_is_an_error_to_the_model(
    isolated_home: Path, workspace: Path
) -> None:
    host = RecordingHost()
    task, provider = make_task(
        isolated_home, workspace, ["<read_file>\n</read_file>", complete()], host
    )
    assert (await task.start("x")).completed
    text = provider.requests[1].messages[-1].text
    assert "Missing value for required parameter 'path'" in text


async def test_unknown_tool_text_is_not_a_tool(isolated_home: Path, workspace: Path) -> None:
    host = RecordingHost()
    task, provider = make_task(
        isolated_home, workspace, ["<fly_away>\n<path>x</path>\n</fly_away>", complete()], host
    )
    assert (await task.start("x")).completed
    assert "You did not use a tool" in provider.requests[1].messages[-1].text


async def test_only_the_first_tool_runs(isolated_home: Path, workspace: Path) -> None:
    host = RecordingHost()
    two = write("one.txt", "1") + "\n" + write("two.txt", "2")
    task, provider = make_task(isolated_home, workspace, [two, complete()], host)
    assert (await task.start("x")).completed
    assert (workspace / "one.txt").exists()
    assert not (workspace / "two.txt").exists()
    assert "Only one tool may be used per message" in provider.requests[1].messages[-1].text
    assert "[Response interrupted by a tool use result" in provider.requests[1].messages[-2].text


async def test_completion_feedback_continues_the_loop(isolated_home: Path, workspace: Path) -> None:
    host = RecordingHost(answers=[Answer(text="add a README too")])
    task, provider = make_task(
        isolated_home, workspace, [complete("v1"), write("README.md", "hi"), complete("v2")], host
    )
    assert (await task.start("x")).completed
    assert "<feedback>\nadd a README too\n</feedback>" in provider.requests[1].messages[-1].text
    assert [q.kind for q in host.questions if isinstance(q, CompletionQuestion)] == [
        "completion",
        "completion",
    ]


async def test_followup_option_chosen_goes_to_model(isolated_home: Path, workspace: Path) -> None:
    host = RecordingHost(answers=[Answer("2")])
    ask = '<ask_followup_question>\n<question>Which port?</question>\n<options>["8000", "8080"]</options>\n</ask_followup_question>'
    task, provider = make_task(isolated_home, workspace, [ask, complete()], host)
    assert (await task.start("x")).completed
    question = host.questions[0]
    assert isinstance(question, FollowupQuestion)
    assert [(o.id, o.label) for o in question.options] == [("1", "8000"), ("2", "8080")]
    assert "<answer>\n8080\n</answer>" in provider.requests[1].messages[-1].text


async def test_path_outside_workspace_is_never_auto_approved(
    isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    host = RecordingHost(default=no)
    settings = TaskSettings(auto_approve=AutoApprove(edit_files=True), approve_all_inside=True)
    outside = tmp_path / "outside.txt"
    task, _provider = make_task(
        isolated_home,
        workspace,
        [write(str(outside), "x"), write("../escape.txt", "y"), complete()],
        host,
        settings=settings,
    )
    assert (await task.start("x")).completed
    assert not outside.exists()
    assert not (workspace.parent / "escape.txt").exists()
    asked = [q for q in host.questions if isinstance(q, ApprovalQuestion)]
    assert len(asked) == 2 and all(q.outside_workspace for q in asked)


async def test_transient_errors_are_retried(isolated_home: Path, workspace: Path) -> None:
    host = RecordingHost()
    flaky = ScriptedReply(
        text="partial", error=ProviderError(ProviderErrorKind.SERVER, "Server error", status=500)
    )
    task, provider = make_task(isolated_home, workspace, [flaky, complete()], host)
    assert (await task.start("x")).completed
    assert len(provider.requests) == 2
    assert any("retrying" in e.text for e in host.of_kind("notice"))  # type: ignore[attr-defined]


async def test_auth_error_stops_with_one_line_and_saves(
    isolated_home: Path, workspace: Path
) -> None:
    host = RecordingHost(default=no)
    denied = ScriptedReply(
        error=ProviderError(
            ProviderErrorKind.AUTH, "Authentication failed: check your API key", status=401
        )
    )
    task, provider = make_task(isolated_home, workspace, [denied], host)
    outcome = await task.start("x")
    assert not outcome.completed
    assert "Authentication failed" in outcome.reason and "\n" not in outcome.reason
    assert len(provider.requests) == 1  # not retried
    assert isinstance(host.questions[-1], ErrorRetryQuestion)
    history = json.loads(
        (task.folder / "api_conversation_history.json").read_text(encoding="utf-8")
    )
    assert history[0]["content"][0]["text"].startswith("<task>")


async def test_cancellation_saves_the_task(isolated_home: Path, workspace: Path) -> None:
    started = asyncio.Event()

    class WaitingHost(RecordingHost):
        async def ask(self, question):  # type: ignore[no-untyped-def]
            started.set()
            await asyncio.Event().wait()  # the user never answers
            raise AssertionError("unreachable")

    host = WaitingHost()
    task, _ = make_task(isolated_home, workspace, [write("a.txt", "x")], host)
    runner = asyncio.create_task(task.start("x"))
    await asyncio.wait_for(started.wait(), 10)
    runner.cancel()
    with pytest.raises(asyncio.CancelledError):
        await runner
    meta = json.loads((task.folder / "task_metadata.json").read_text(encoding="utf-8"))
    assert meta["record"]["status"] == "cancelled"
    assert not (workspace / "a.txt").exists()
    ui = json.loads((task.folder / "ui_messages.json").read_text(encoding="utf-8"))
    assert ui[0]["say"] == "task"


async def test_usage_and_cost_are_recorded(isolated_home: Path, workspace: Path) -> None:
    from pycline.providers.base import UsageChunk

    host = RecordingHost()
    reply = ScriptedReply(
        text=complete(),
        usage=UsageChunk(input_tokens=1000, output_tokens=50, cache_read_tokens=200),
    )
    task, _ = make_task(isolated_home, workspace, [reply], host)
    assert (await task.start("x")).completed
    meta = json.loads((task.folder / "task_metadata.json").read_text(encoding="utf-8"))["record"]
    assert (meta["tokens_in"], meta["tokens_out"], meta["cache_reads"]) == (1000, 50, 200)
    assert meta["status"] == "completed"


async def test_a_file_changed_by_someone_else_is_reported_once(
    isolated_home: Path, workspace: Path
) -> None:
    (workspace / "notes.md").write_text("one\n", encoding="utf-8")
    edited = asyncio.Event()

    def user_edits(question: object) -> Answer:
        (workspace / "notes.md").write_text("two, by the user\n", encoding="utf-8")
        os.utime(workspace / "notes.md", (1, 1))  # a clearly different mtime
        edited.set()
        return Answer(text="go on")

    host = RecordingHost(answers=[user_edits])
    ask = "<ask_followup_question>\n<question>Ready?</question>\n</ask_followup_question>"
    replies = ["<read_file>\n<path>notes.md</path>\n</read_file>", ask, ask, complete()]
    task, provider = make_task(isolated_home, workspace, replies, host)
    assert (await task.start("x")).completed
    assert edited.is_set()
    assert "# Recently Modified Files" not in provider.requests[1].messages[-1].text
    assert "# Recently Modified Files\n" in provider.requests[2].messages[-1].text
    assert "notes.md" in provider.requests[2].messages[-1].text.split("Recently Modified")[1]
    assert "# Recently Modified Files" not in provider.requests[3].messages[-1].text
