"""Double-check completion: an attempt to finish after changing files, with no command run since,
is sent back once; a checked change, no change, and a second attempt go through."""

from __future__ import annotations

from pathlib import Path

from pycline.core.approval import AutoApprove
from pycline.core.double_check import SENT_BACK, DoubleCheck, ran_no_tests, usual_check
from pycline.core.options import TaskSettings
from pycline.core.task import Task
from pycline.events import Notice
from pycline.providers.scripted import ScriptedProvider
from pycline.testing import default_capabilities, task_for
from tests.core.harness import RecordingHost, complete

WRITE = "<write_to_file>\n<path>a.py</path>\n<content>\nx = 1\n</content>\n</write_to_file>"
RUN = (
    "<execute_command>\n<command>python3 -c 'print(1)'</command>\n"
    "<requires_approval>false</requires_approval>\n</execute_command>"
)

NO_TESTS = (
    "<execute_command>\n<command>python3 -c 'print(\"?   \\tx\\t[no test files]\")'</command>\n"
    "<requires_approval>false</requires_approval>\n</execute_command>"
)


HOST = RecordingHost()


def run_task(home: Path, workspace: Path, replies: list[str]) -> tuple[ScriptedProvider, Task]:
    HOST.events.clear()
    provider = ScriptedProvider.of(*replies, chunk_size=50)
    settings = TaskSettings(auto_approve=AutoApprove(yolo=True))
    capabilities = [*default_capabilities(workspace, settings=settings), DoubleCheck()]
    task = task_for(
        home, workspace, provider, HOST, settings=settings,
        task_text="make a.py", capabilities=capabilities,
    )  # fmt: skip
    return provider, task


def results(provider: ScriptedProvider) -> list[str]:
    return [r.messages[-1].text for r in provider.requests[1:]]


async def test_an_unchecked_change_is_sent_back_once_with_the_task(
    isolated_home: Path, workspace: Path
) -> None:
    (workspace / "go.mod").write_text("module x\n", encoding="utf-8")
    provider, task = run_task(isolated_home, workspace, [WRITE, complete(), complete()])
    assert (await task.start("make a.py")).completed
    sent_back = results(provider)[1]
    assert sent_back.startswith("[attempt_completion] Result:\nNot finished yet: you changed a.py")
    assert "`go test ./...`" in sent_back and "<task>\nmake a.py\n</task>" in sent_back
    assert len(provider.requests) == 3  # the second attempt went through
    notices = [e.text for e in HOST.events if isinstance(e, Notice)]
    assert notices == [f"{SENT_BACK}: a.py changed, and nothing ran since."]  # the user sees it
    # No check known for the project: the changed code is run on the task's own example.
    (workspace / "go.mod").unlink()
    provider, task = run_task(isolated_home, workspace, [WRITE, complete(), complete()])
    assert (await task.start("make a.py")).completed
    sent_back = results(provider)[1]
    assert "run the changed code on the task's own example" in sent_back
    assert "`python3 -c` …" in sent_back and "tests or build" not in sent_back


async def test_a_checked_change_finishes_at_once_and_an_idle_one_is_sent_back(
    isolated_home: Path, workspace: Path
) -> None:
    provider, task = run_task(isolated_home, workspace, [WRITE, RUN, complete()])
    assert (await task.start("make a.py")).completed
    assert len(provider.requests) == 3
    assert not any("Not finished yet" in r for r in results(provider))
    # A task where nothing ran at all is sent back once, whatever it asked.
    provider, task = run_task(isolated_home, workspace, [complete(), complete()])
    assert (await task.start("what is a.py?")).completed
    assert len(provider.requests) == 2
    assert "no tool has run in this task" in results(provider)[0]


def test_the_usual_check_follows_the_project_kind(tmp_path: Path) -> None:
    assert usual_check(tmp_path) is None
    (tmp_path / "tsconfig.json").write_text("{}", encoding="utf-8")
    assert usual_check(tmp_path) is None  # no compiler installed: npx would download one
    (tmp_path / "node_modules" / ".bin").mkdir(parents=True)
    (tmp_path / "node_modules" / ".bin" / "tsc").write_text("", encoding="utf-8")
    assert usual_check(tmp_path) == "npx tsc --noEmit"
    (tmp_path / "package.json").write_text('{"scripts": {"test": "vitest"}}', encoding="utf-8")
    assert usual_check(tmp_path) == "npm test"
    (tmp_path / "pyproject.toml").write_text("", encoding="utf-8")
    assert usual_check(tmp_path) == "python -m pytest"


async def test_a_test_command_that_ran_no_tests_is_no_check(
    isolated_home: Path, workspace: Path
) -> None:
    provider, task = run_task(isolated_home, workspace, [WRITE, NO_TESTS, complete(), complete()])
    assert (await task.start("make a.py")).completed
    sent_back = results(provider)[2]
    assert sent_back.startswith("[attempt_completion] Result:\nNot finished yet: `python3 -c")
    assert "ran no tests, so it checked nothing" in sent_back
    assert "<task>\nmake a.py\n</task>" in sent_back
    assert len(provider.requests) == 4  # sent back once; the next attempt went through
    notices = [e.text for e in HOST.events if isinstance(e, Notice)]
    assert notices[-1].startswith(f"{SENT_BACK}: a.py changed, and `python3 -c")
    # The usual order: sent back unchecked, then the check runs no tests: sent back for that too,
    # once; the third attempt goes through.
    replies = [WRITE, complete(), NO_TESTS, complete(), complete()]
    provider, task = run_task(isolated_home, workspace, replies)
    assert (await task.start("make a.py")).completed
    assert "have not run anything since" in results(provider)[1]
    assert "ran no tests, so it checked nothing" in results(provider)[3]
    assert len(provider.requests) == 5
    # A command that ran no tests before any change is no reason to send anything back.
    provider, task = run_task(isolated_home, workspace, [NO_TESTS, complete()])
    assert (await task.start("make a.py")).completed
    assert len(provider.requests) == 2


def test_no_tests_means_a_runner_said_so_and_none_ran() -> None:
    assert ran_no_tests("?   \texample.com/textstat\t[no test files]\n")
    assert ran_no_tests("===== test session starts =====\ncollected 0 items\n")
    assert ran_no_tests("\nRan 0 tests in 0.000s\n\nOK\n")
    assert ran_no_tests("No tests found, exiting with code 1\n")
    # Some package ran its tests: that is a check.
    assert not ran_no_tests("?   \tx/cmd\t[no test files]\nok  \tx/lib\t0.01s\n")
    assert not ran_no_tests("collected 3 items\n\n3 passed in 0.1s\n")
    assert not ran_no_tests("running 0 tests\nrunning 2 tests\ntest a ... ok\n")
    assert not ran_no_tests("hello, world\n")  # an example run, not a test runner
