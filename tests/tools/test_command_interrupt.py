"""A command stopped by the user keeps its output so far, and the task keeps it as the result."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from pycline.core.resumption import interrupted_results, prepare
from pycline.events import Event, ToolOutput
from pycline.messages import Message, TextContent, ToolUseContent
from pycline.storage.task_store import TaskFolder
from pycline.testing import RecordingHost, make_task
from pycline.tools.base import Interrupted, ToolCall
from pycline.tools.command import ExecuteCommandTool
from tests.tools.readcmd_support import make_ctx

SLOW = "echo one-$((40+2)); sleep 30"


async def test_a_cancelled_command_carries_its_output_so_far(workspace: Path) -> None:
    ctx, recorder = make_ctx(workspace)
    call = ToolCall("execute_command", {"command": SLOW, "requires_approval": "false"})
    running = asyncio.create_task(ExecuteCommandTool().run(call, ctx))
    while "one-42" not in recorder.output:
        await asyncio.wait_for(recorder.output_seen.wait(), 10)
        recorder.output_seen.clear()
    running.cancel()
    with pytest.raises(Interrupted) as caught:
        await running
    assert "The user interrupted this command" in caught.value.result.text
    assert "one-42" in caught.value.result.text


async def test_the_task_saves_the_partial_result_for_the_next_request(
    isolated_home: Path, workspace: Path
) -> None:
    command = (
        f"<execute_command>\n<command>{SLOW}</command>\n"
        "<requires_approval>false</requires_approval>\n</execute_command>"
    )
    seen = asyncio.Event()

    class Host(RecordingHost):
        def say(self, event: Event) -> None:
            super().say(event)
            if isinstance(event, ToolOutput) and "one-42" in event.text:
                seen.set()

    task, _ = make_task(isolated_home, workspace, [command], Host())
    running = asyncio.create_task(task.start("go"))
    await asyncio.wait_for(seen.wait(), 10)
    running.cancel()
    with pytest.raises(asyncio.CancelledError):
        await running
    _, pending = prepare(TaskFolder(task.folder).load_api_history())
    [result] = pending
    assert isinstance(result, TextContent)
    assert "interrupted this command" in result.text and "one-42" in result.text


def test_native_calls_each_get_a_result_when_one_was_interrupted() -> None:
    calls = (ToolUseContent("a", "read_file", ()), ToolUseContent("b", "execute_command", ()))
    history = [Message("user", (TextContent("task"),)), Message("assistant", calls)]
    message = interrupted_results(history, "b", "[execute_command] Result:\npartial")
    ids = [c.tool_use_id for c in message.content if isinstance(c, TextContent)]
    assert ids == ["a", "b"]
    assert message.content[1] == TextContent("[execute_command] Result:\npartial", "b")
