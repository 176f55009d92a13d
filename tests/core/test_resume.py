"""Resuming saved tasks: interrupted tool calls, in-flight requests, the resumption message."""

from __future__ import annotations

from pathlib import Path

from pycline.app.builders.builder import TaskBuilder
from pycline.app.settings.config import ModelConfig
from pycline.core import resumption
from pycline.core.task import TaskSettings
from pycline.messages import Message, TextContent
from pycline.providers.scripted import ScriptedProvider
from tests.core.harness import RecordingHost, complete, make_task, no


def test_trailing_tool_call_is_marked_interrupted() -> None:
    history = [
        Message.user("<task>\nx\n</task>"),
        Message.assistant("<read_file>\n<path>a</path>\n</read_file>"),
    ]
    kept, pending = resumption.prepare(history)
    assert kept == history
    assert len(pending) == 1 and isinstance(pending[0], TextContent)
    assert pending[0].text.startswith("[read_file] Result:") and "interrupted" in pending[0].text


def test_trailing_user_message_is_resent_without_stale_environment() -> None:
    last = Message(
        "user",
        (
            TextContent("[read_file for 'a'] Result:\nabc"),
            TextContent("<environment_details>\nold\n</environment_details>"),
        ),
    )
    kept, pending = resumption.prepare(
        [Message.user("<task>x</task>"), Message.assistant("<read_file>…"), last]
    )
    assert len(kept) == 2
    assert pending == [TextContent("[read_file for 'a'] Result:\nabc")]


def test_ago_reads_naturally() -> None:
    assert resumption.ago(0, now=30) == "just now"
    assert resumption.ago(0, now=3 * 3600 + 5) == "3 hours ago"
    assert resumption.ago(0, now=86400) == "1 day ago"


async def test_resume_continues_in_same_folder_with_resumption_message(
    isolated_home: Path, workspace: Path
) -> None:
    host = RecordingHost(default=no)
    # First run: the model asks to write, the user refuses, the model gives up after mistakes.
    task, _ = make_task(isolated_home, workspace, ["thinking", "more", "still"], host)
    first = await task.start("make a file")
    assert not first.completed
    task_id = task.id

    provider = ScriptedProvider.of(complete("resumed and done"))
    builder = TaskBuilder(isolated_home, ModelConfig(provider="scripted"))
    host2 = RecordingHost()
    resumed, run = builder.resume_task(task_id, host2, workspace, TaskSettings(), provider=provider)
    outcome = await run()
    assert outcome.completed
    assert resumed.folder == task.folder
    sent = provider.requests[0].messages
    assert sent[0].text.startswith("<task>\nmake a file\n</task>")
    assert "[TASK RESUMPTION]" in sent[-1].text
    assert str(workspace.resolve()) in sent[-1].text
