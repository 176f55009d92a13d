"""Sub-agents of a task built without a session: the inline spawner runs them in the parent's
tool call, with the same report, charges and cancellation."""

from __future__ import annotations

import asyncio
from pathlib import Path

from pycline.app.builders import wiring
from pycline.core.task import Task
from pycline.events import SubagentProgress
from pycline.providers.scripted import ScriptedReply
from pycline.storage.task_store import TaskFolder
from pycline.testing import RecordingHost, task_for
from tests.app.test_subagents import SPAWN, USAGE, RoutedProvider, _done, _read


def _task(home: Path, root: Path, provider: RoutedProvider, host: RecordingHost) -> Task:
    (root / "a.txt").write_text("alpha\n", encoding="utf-8")
    (root / "b.txt").write_text("beta\n", encoding="utf-8")
    tools = [*wiring.default_tools(browser=False), *wiring.subagent_tools(home)]
    return task_for(home, root, provider, host, tools=tools, task_text="research")


async def test_inline_subagents_report_and_charge_the_parent(
    isolated_home: Path, workspace: Path
) -> None:
    provider = RoutedProvider(
        {
            "a.txt?": [_read("a.txt"), _done("alpha")],
            "b.txt?": [_read("b.txt"), _done("beta")],
            "research": [ScriptedReply(text=SPAWN, usage=USAGE), _done("both")],
        }
    )
    host = RecordingHost()
    task = _task(isolated_home, workspace, provider, host)
    async with asyncio.timeout(30):
        assert (await task.start("research")).completed
    finished = [e for e in host.events if isinstance(e, SubagentProgress) and e.status != "running"]
    assert sorted(e.index for e in finished) == [1, 2]
    assert all(e.status == "completed" and e.child_task_id.startswith(task.id) for e in finished)
    result = task.history[2].text
    assert "Succeeded: 2" in result and "[2] COMPLETED - What is in b.txt?\nbeta" in result
    assert task.record.tokens_in == 6_000


async def test_cancelling_the_parent_cancels_inline_subagents(
    isolated_home: Path, workspace: Path
) -> None:
    provider = RoutedProvider(
        {"a.txt?": None, "b.txt?": None, "research": [ScriptedReply(text=SPAWN)]}
    )
    task = _task(isolated_home, workspace, provider, RecordingHost())
    async with asyncio.timeout(30):
        running = asyncio.create_task(task.start("research"))
        await provider.blocked.get()
        await provider.blocked.get()
        running.cancel()
        await asyncio.gather(running, return_exceptions=True)
    children = sorted((task.folder / "subagents").iterdir())
    statuses = [TaskFolder(c).load_record().status for c in children]
    assert statuses == ["cancelled", "cancelled"]
