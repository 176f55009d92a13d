"""Condensing in the loop: auto-condense at the threshold, `/compact` at the completion prompt,
the summary replacing history with the task and fresh copies of the files it names."""

from __future__ import annotations

import json
import os
from pathlib import Path

from pycline.cli.interactive import InteractiveHost
from pycline.cli.lines import LineReader
from pycline.commands import Command
from pycline.context.condense import CONDENSE_REQUEST, REREAD_INTRO, SUMMARY_INTRO
from pycline.core.approval import AutoApprove
from pycline.core.task import Task, TaskSettings
from pycline.errors import ProviderError, ProviderErrorKind
from pycline.events import Answer, CompletionQuestion, Notice, Question
from pycline.providers.base import UsageChunk
from pycline.providers.scripted import ScriptedReply
from tests.core.harness import RecordingHost, complete, make_task, yes

READ = "<read_file>\n<path>src/app.py</path>\n</read_file>"


def summary_reply(files: str = "src/app.py\nsecret.env\n../outside.txt\nmissing.py") -> str:
    listed = "\n".join(f"- {f}" for f in files.splitlines())
    return (
        "<summarize_task>\n<context>\n1. Primary Request and Intent: fix the app.\n"
        "3. Files and Code Sections:\n   - src/app.py: entry point\n"
        "7. Current Work: reading src/app.py.\n"
        f"9. Required Files:\n{listed}\n</context>\n</summarize_task>"
    )


def settings(threshold: float | None) -> TaskSettings:
    return TaskSettings(auto_approve=AutoApprove(), max_retries=3, auto_condense=threshold)


def big_usage() -> UsageChunk:
    # The scripted model has a 200k window: 150k used is past a 50% threshold.
    return UsageChunk(input_tokens=150_000, output_tokens=100)


def setup_files(workspace: Path) -> None:
    (workspace / "src").mkdir()
    (workspace / "src" / "app.py").write_text("print('v1')\n", encoding="utf-8")
    (workspace / "secret.env").write_text("TOKEN=hunter2\n", encoding="utf-8")
    (workspace / ".clineignore").write_text("secret.env\n", encoding="utf-8")


async def test_auto_condense_replaces_history_at_the_threshold(
    isolated_home: Path, workspace: Path
) -> None:
    setup_files(workspace)
    host = RecordingHost()
    replies = [
        ScriptedReply(text=READ, usage=big_usage()),
        ScriptedReply(
            text=summary_reply(), usage=UsageChunk(input_tokens=150_000, output_tokens=300)
        ),
        complete(),
    ]
    task, provider = make_task(
        isolated_home, workspace, replies, host, settings=settings(0.5), task_text="fix the app"
    )
    # The file changes after it was read: the summary must attach the current content.
    (workspace / "src" / "app.py").write_text("print('v2')\n", encoding="utf-8")
    assert (await task.start("fix the app")).completed

    condense_request = provider.requests[1].messages
    assert CONDENSE_REQUEST in condense_request[-1].text
    assert condense_request[-1].text.startswith("[read_file for 'src/app.py'] Result:")

    after = provider.requests[2].messages
    assert [m.role for m in after] == ["user", "assistant", "user"]
    first = after[0].text
    assert first.startswith("<task>\nfix the app\n</task>")
    assert "<environment_details>" not in first  # stale details are dropped
    assert REREAD_INTRO in first and "print('v2')" in first
    assert "hunter2" not in first  # .clineignore is respected
    assert "outside.txt" not in first and "missing.py" not in first
    assert after[1].text.startswith(SUMMARY_INTRO) and "fix the app" in after[1].text
    assert after[2].text.startswith("[read_file for 'src/app.py'] Result:")  # the pending turn
    assert CONDENSE_REQUEST not in after[2].text

    notices = [e.text for e in host.events if isinstance(e, Notice)]
    assert any("condensed" in n and "src/app.py" in n for n in notices)
    saved = json.loads((task.folder / "api_conversation_history.json").read_text("utf-8"))
    assert len(saved) == 4  # task, summary, pending tool result, completion
    # The summary request is paid for like any other.
    assert task.record.tokens_out >= 300


async def test_required_files_never_lead_outside_the_workspace_or_block(
    isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    # The summary is model text: a listed symlink to a file outside, or a FIFO that would block
    # the first read forever, is left out; the ordinary file next to them is attached.
    setup_files(workspace)
    outside = tmp_path / "outside-secret.txt"
    outside.write_text("KEY=sk-outside\n", encoding="utf-8")
    (workspace / "link.txt").symlink_to(outside)
    os.mkfifo(workspace / "pipe.txt")
    replies = [
        ScriptedReply(text=READ, usage=big_usage()),
        ScriptedReply(text=summary_reply("link.txt\npipe.txt\nsrc/app.py")),
        complete(),
    ]
    task, provider = make_task(
        isolated_home, workspace, replies, RecordingHost(), settings=settings(0.5)
    )
    assert (await task.start("fix the app")).completed
    first = provider.requests[2].messages[0].text
    assert "print('v1')" in first
    assert "sk-outside" not in first and "link.txt" not in first and "pipe.txt" not in first


async def test_without_a_threshold_nothing_is_condensed(
    isolated_home: Path, workspace: Path
) -> None:
    setup_files(workspace)
    replies = [ScriptedReply(text=READ, usage=big_usage()), complete()]
    task, provider = make_task(
        isolated_home, workspace, replies, RecordingHost(), settings=settings(None)
    )
    assert (await task.start("fix")).completed
    assert all(CONDENSE_REQUEST not in r.messages[-1].text for r in provider.requests)


async def test_a_failed_summary_request_leaves_history_alone(
    isolated_home: Path, workspace: Path
) -> None:
    setup_files(workspace)
    host = RecordingHost()
    failure = ProviderError(ProviderErrorKind.BAD_REQUEST, "summary refused", status=400)
    replies = [
        ScriptedReply(text=READ, usage=big_usage()),
        ScriptedReply(error=failure),
        complete(),
    ]
    task, provider = make_task(isolated_home, workspace, replies, host, settings=settings(0.5))
    assert (await task.start("fix")).completed
    # The loop carried on with the full history.
    assert len(provider.requests[2].messages) == 3
    assert any(isinstance(e, Notice) and "not condensed" in e.text for e in host.events)


class CompactingHost(RecordingHost):
    """At the first completion prompt: condense, then give feedback; then accept."""

    task: Task | None = None
    compacted: bool | None = None

    async def ask(self, question: Question) -> Answer:
        self.questions.append(question)
        if isinstance(question, CompletionQuestion) and self.compacted is None:
            assert self.task is not None
            self.compacted = await self.task.compact()
            return Answer(text="also add a test")
        return yes(question)


async def test_compact_at_the_completion_prompt_then_feedback_continues(
    isolated_home: Path, workspace: Path
) -> None:
    setup_files(workspace)
    host = CompactingHost()
    replies = [READ, complete("first"), summary_reply("src/app.py"), complete("second")]
    task, provider = make_task(isolated_home, workspace, replies, host, settings=settings(None))
    host.task = task
    assert (await task.start("fix the app")).completed
    assert host.compacted is True
    assert provider.requests[2].messages[-1].text == CONDENSE_REQUEST
    after = provider.requests[3].messages
    assert [m.role for m in after] == ["user", "assistant", "user"]
    assert after[1].text.startswith(SUMMARY_INTRO)
    assert "also add a test" in after[2].text


async def test_interactive_compact_command_calls_the_task_then_asks_again(
    tmp_path: Path,
) -> None:
    from pycline.cli.slash_run import SlashState

    calls: list[str] = []

    class RunningTask:  # the slice of a task handle `/compact` uses
        id = "t1"
        done = False

        async def send(self, command: Command) -> None:
            calls.append(command.kind)

    read_fd, write_fd = os.pipe()
    os.write(write_fd, b"/compact\nship it\n")
    os.close(write_fd)
    state = SlashState(tmp_path, tmp_path, session=None)  # type: ignore[arg-type]
    state.handle = RunningTask()  # type: ignore[assignment]
    host = InteractiveHost(LineReader(read_fd), state=state)
    try:
        answer = await host.ask(CompletionQuestion("done"))
    finally:
        os.close(read_fd)
    assert calls == ["compact"]
    assert answer == Answer(text="ship it")
