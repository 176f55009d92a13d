from __future__ import annotations

import asyncio
import re
import shlex
import sys
import time
from pathlib import Path

import pytest

from pycline.errors import ToolError
from pycline.events import ToolOutput
from pycline.terminal.background import BackgroundProcesses
from pycline.terminal.process import DISPLAY_LIMIT
from pycline.tools.base import ToolCall
from pycline.tools.command import ExecuteCommandTool
from pycline.tools.services import ToolServices
from tests.tools.readcmd_support import FakeAccess, live_group_members, make_ctx

PY = shlex.quote(sys.executable)


def call(command: str, requires_approval: str = "false", **extra: str) -> ToolCall:
    return ToolCall(
        "execute_command", {"command": command, "requires_approval": requires_approval, **extra}
    )


async def test_output_exit_code_and_directory_are_reported(workspace: Path) -> None:
    ctx, rec = make_ctx(workspace)
    result = await ExecuteCommandTool().run(call("echo out; echo err >&2; exit 3"), ctx)
    assert result.text.startswith(f"Command executed in {ctx.cwd} (exit code 3, ")
    assert "Output:\nout\nerr" in result.text
    assert not result.is_error
    assert rec.output == "out\nerr\n"


async def test_command_runs_in_the_workspace(workspace: Path) -> None:
    ctx, _ = make_ctx(workspace)
    result = await ExecuteCommandTool().run(call("pwd"), ctx)
    assert str(ctx.cwd) in result.text.split("Output:\n", 1)[1]


async def test_command_sees_a_terminal(workspace: Path) -> None:
    ctx, _ = make_ctx(workspace)
    result = await ExecuteCommandTool().run(
        call(f'{PY} -c "import sys; print(sys.stdout.isatty(), sys.stdin.isatty())"'), ctx
    )
    # Output is a terminal; input is not, so nothing can wait for keys.
    assert "Output:\nTrue False" in result.text


async def test_no_output_is_said_plainly(workspace: Path) -> None:
    ctx, _ = make_ctx(workspace)
    result = await ExecuteCommandTool().run(call("true"), ctx)
    assert "(exit code 0," in result.text and result.text.endswith("Output: (none)")


async def test_model_sees_cleaned_output(workspace: Path) -> None:
    ctx, rec = make_ctx(workspace)
    script = (
        r"printf '\033[32mgreen\033[0m\n'; for p in 10 50 100; do printf '\r%s%%' $p; done; echo"
    )
    result = await ExecuteCommandTool().run(call(script), ctx)
    assert result.text.endswith("Output:\ngreen\n100%")
    assert "\x1b" not in rec.output


async def test_ten_megabytes_of_output_are_bounded_and_fast(workspace: Path) -> None:
    ctx, rec = make_ctx(workspace)
    command = f"{PY} -c \"import sys; sys.stdout.write(''.join('%07d %s\\n' % (i, 'x' * 92) for i in range(105000)))\""
    started = time.monotonic()
    result = await ExecuteCommandTool().run(call(command), ctx)
    elapsed = time.monotonic() - started
    assert elapsed < 10, elapsed
    assert len(result.text) < 35_000
    assert "0000000 x" in result.text and "0104999 x" in result.text
    omitted = re.search(r"\[\.\.\. (\d+) lines \((\d+) characters\) omitted", result.text)
    assert omitted is not None and int(omitted.group(1)) > 100_000
    # The live display is bounded too, and still ends with the last line.
    assert len(rec.output) < DISPLAY_LIMIT + 20_000
    assert rec.output.rstrip().endswith("0104999 " + "x" * 92)


async def test_timeout_stops_the_command_and_its_group(workspace: Path) -> None:
    ctx, rec = make_ctx(workspace)
    started = time.monotonic()
    # 2 s, not less: on a loaded machine the shell must get to print its pid before the timeout.
    result = await ExecuteCommandTool().run(call("echo $$; exec sleep 30", timeout="2"), ctx)
    assert time.monotonic() - started < 12
    assert result.text.startswith("Command timed out after 2s")
    pgid = int(rec.output.split()[0])
    assert f"Output:\n{pgid}" in result.text
    assert live_group_members(pgid) == []  # zombies re-parented to init may linger a moment


async def test_timeout_also_kills_children_of_the_shell(workspace: Path) -> None:
    ctx, rec = make_ctx(workspace, command_timeout=2)
    result = await ExecuteCommandTool().run(call("echo $$; sleep 30 | cat; sleep 30"), ctx)
    assert "timed out" in result.text
    assert live_group_members(int(rec.output.split()[0])) == []


async def test_children_left_running_after_the_shell_exits_are_stopped(workspace: Path) -> None:
    ctx, rec = make_ctx(workspace)
    result = await ExecuteCommandTool().run(call("echo $$; sleep 30 &"), ctx)
    assert "(exit code 0," in result.text
    assert live_group_members(int(rec.output.split()[0])) == []


async def test_cancelling_mid_run_leaves_no_process(workspace: Path) -> None:
    ctx, rec = make_ctx(workspace)
    command = "echo $$; sleep 30 & sleep 30 | cat"
    task = asyncio.create_task(ExecuteCommandTool().run(call(command), ctx))
    await asyncio.wait_for(rec.output_seen.wait(), 10)
    pgid = int(rec.output.split()[0])
    assert live_group_members(pgid)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(task, 10)
    assert live_group_members(pgid) == []


async def test_still_running_command_may_continue_in_the_background(workspace: Path) -> None:
    registry = BackgroundProcesses()
    ctx, rec = make_ctx(
        workspace, services=ToolServices(background=registry, allow_background=True)
    )
    result = await ExecuteCommandTool().run(
        call("echo $$ started; exec sleep 30", timeout="2"), ctx
    )
    try:
        assert "still running" in result.text and "background" in result.text
        assert "started" in result.text
        (info,) = registry.list()
        assert info.running and info.command == "echo $$ started; exec sleep 30"
        pgid = int(rec.output.split()[0])
        assert live_group_members(pgid)
    finally:
        await registry.stop_all()
    assert live_group_members(pgid) == []


async def test_background_needs_the_flag(workspace: Path) -> None:
    registry = BackgroundProcesses()
    ctx, _ = make_ctx(workspace, services=ToolServices(background=registry))
    result = await ExecuteCommandTool().run(call("exec sleep 30", timeout="0.3"), ctx)
    assert "timed out" in result.text and len(registry) == 0


async def test_safe_command_uses_the_safe_category(workspace: Path) -> None:
    ctx, rec = make_ctx(workspace)
    await ExecuteCommandTool().run(call("echo hi"), ctx)
    ((question, category, outside),) = rec.approvals
    assert category == "safe_command" and not outside
    assert question.tool == "execute_command" and question.preview == "echo hi"


async def test_requires_approval_true_uses_the_command_category(workspace: Path) -> None:
    ctx, rec = make_ctx(workspace)
    await ExecuteCommandTool().run(call("echo hi", "TRUE"), ctx)
    assert rec.approvals[0][1] == "command"


async def test_dangerous_command_needs_approval_even_when_marked_safe(workspace: Path) -> None:
    ctx, rec = make_ctx(workspace, approve=False)
    result = await ExecuteCommandTool().run(call("touch ran && git push --force"), ctx)
    ((question, category, _),) = rec.approvals
    assert category == "dangerous_command"
    assert "force" in question.summary
    assert result.denied and not (workspace / "ran").exists()


async def test_denied_command_does_not_run_and_passes_feedback(workspace: Path) -> None:
    ctx, rec = make_ctx(workspace, approve=False, feedback="use make instead")
    result = await ExecuteCommandTool().run(call("touch ran"), ctx)
    assert result.denied
    assert result.text.startswith("The user denied this operation.")
    assert "use make instead" in result.text
    assert not (workspace / "ran").exists() and rec.output == ""


async def test_refused_command_fails_before_asking(workspace: Path) -> None:
    ctx, rec = make_ctx(workspace, access=FakeAccess(refused_word="cat"))
    with pytest.raises(ToolError, match="denied by the command permission rules"):
        await ExecuteCommandTool().run(call("cat secret.env"), ctx)
    assert rec.approvals == []


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"command": "ls", "requires_approval": "maybe"}, "requires_approval must be"),
        ({"command": "ls"}, "requires_approval"),
        ({"command": " ", "requires_approval": "false"}, "command"),
        ({"command": "ls", "requires_approval": "false", "timeout": "soon"}, "timeout"),
        ({"command": "ls", "requires_approval": "false", "timeout": "-1"}, "timeout"),
        ({"command": "ls", "requires_approval": "false", "timeout": "nan"}, "timeout"),
    ],
)
async def test_bad_parameters_become_tool_errors(
    workspace: Path, params: dict[str, str], message: str
) -> None:
    ctx, rec = make_ctx(workspace)
    with pytest.raises(ToolError, match=message):
        await ExecuteCommandTool().run(ToolCall("execute_command", params), ctx)
    assert rec.approvals == []


async def test_output_streams_while_the_command_runs(workspace: Path) -> None:
    ctx, rec = make_ctx(workspace)
    gate = workspace / "gate"
    # The command waits for a file the test creates only after seeing the first line.
    command = (
        f"echo first; while [ ! -e {shlex.quote(str(gate))} ]; do sleep 0.01; done; echo second"
    )
    task = asyncio.create_task(ExecuteCommandTool().run(call(command), ctx))
    await asyncio.wait_for(rec.output_seen.wait(), 10)
    assert rec.output == "first\n" and not task.done()
    gate.touch()
    result = await asyncio.wait_for(task, 10)
    assert "first\nsecond" in result.text
    assert [e.text for e in rec.events if isinstance(e, ToolOutput)] == ["first\n", "second\n"]


def test_summary_names_the_command() -> None:
    assert ExecuteCommandTool().summary(call("npm test")) == "execute_command for 'npm test'"
