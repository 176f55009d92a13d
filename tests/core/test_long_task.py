"""Hundreds of turns through the real loop: no request exceeds the window, the task text stays."""

from __future__ import annotations

from pathlib import Path

from pycline.context.budget import max_allowed
from pycline.context.tokens import estimate_messages, estimate_text
from pycline.providers.base import ModelInfo
from pycline.providers.scripted import ScriptedReply
from tests.core.harness import RecordingHost, complete, make_task

WINDOW = 64_000


async def test_two_hundred_turns_stay_within_the_window_and_keep_the_task(
    isolated_home: Path, workspace: Path
) -> None:
    for i in range(30):
        (workspace / f"mod{i}.py").write_text(
            f"# module {i}\n" + "x = 1\n" * 1000, encoding="utf-8"
        )
    replies: list[str | ScriptedReply] = [
        f"Reading module {i % 30}.\n<read_file>\n<path>mod{i % 30}.py</path>\n</read_file>"
        for i in range(200)
    ]
    replies.append(complete("read them all"))
    host = RecordingHost()
    task, provider = make_task(
        isolated_home, workspace, replies, host, task_text="survey every module"
    )
    provider.model_info = ModelInfo(id="small", context_window=WINDOW)
    provider.chunk_size = 4096
    outcome = await task.start("survey every module")
    assert outcome.completed
    assert len(provider.requests) == 201
    for request in provider.requests:
        sent = estimate_text(request.system) + estimate_messages(request.messages)
        assert sent < WINDOW
        assert request.messages[0].text.startswith("<task>\nsurvey every module\n</task>")
    # The history was trimmed (not just deduplicated): far more was said than one window holds.
    assert estimate_messages(task.history) > 3 * max_allowed(WINDOW)
    assert any("trimmed" in getattr(e, "text", "") for e in host.of_kind("notice"))
