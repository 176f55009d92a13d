"""A model that repeats a call word for word is sampled warmer until it makes another call, and
is sent only the latest copy of the repeated call (with its result); history keeps every copy."""

from __future__ import annotations

from pathlib import Path

from pycline.core.loops import WARM
from tests.core.harness import RecordingHost, complete, make_task

MISSING = "<read_file>\n<path>nope.txt</path>\n</read_file>"
FOUND = "<read_file>\n<path>a.txt</path>\n</read_file>"


async def test_the_request_after_a_repeated_call_is_sampled_warm_until_the_call_changes(
    isolated_home: Path, workspace: Path
) -> None:
    (workspace / "a.txt").write_text("alpha\n", encoding="utf-8")
    replies = [MISSING, MISSING, MISSING, FOUND, complete()]
    task, provider = make_task(isolated_home, workspace, replies, RecordingHost())
    assert (await task.start("read a.txt")).completed
    temperatures = [r.temperature for r in provider.requests]
    # None: the provider's own (0). Warm after the second and third identical call, and back to
    # the provider's own once the model calls something else.
    assert temperatures == [None, None, WARM, WARM, None]


async def test_a_call_made_once_leaves_the_temperature_alone(
    isolated_home: Path, workspace: Path
) -> None:
    (workspace / "a.txt").write_text("alpha\n", encoding="utf-8")
    task, provider = make_task(isolated_home, workspace, [FOUND, complete()], RecordingHost())
    assert (await task.start("read a.txt")).completed
    assert [r.temperature for r in provider.requests] == [None, None]


async def test_the_request_holds_one_copy_of_a_repeated_call_and_history_all_of_them(
    isolated_home: Path, workspace: Path
) -> None:
    (workspace / "a.txt").write_text("alpha\n", encoding="utf-8")
    replies = [MISSING, MISSING, MISSING, FOUND, complete()]
    task, provider = make_task(isolated_home, workspace, replies, RecordingHost())
    assert (await task.start("read a.txt")).completed
    copies = [sum(MISSING in m.text for m in r.messages) for r in provider.requests]
    assert copies == [0, 1, 1, 1, 1]
    latest = provider.requests[3].messages[-1].text
    assert "same call as before (3 times in a row)" in latest
    assert sum(MISSING in m.text for m in task.history) == 3
