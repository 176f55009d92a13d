"""A verified goal: the task completes only when the user's check passes, not when the model
says it is done.

With a goal (`pycline run --verify CMD`, `/verify CMD`, the `set_goal` command), every
`attempt_completion` first runs CMD in the workspace, inside the task's sandbox. Exit 0 lets the
completion go on as usual (the user, or a headless run, accepts it). Any other result goes back
to the model as the result of its completion attempt (the exit code and the tail of the output),
and the task goes on; after `max_attempts` failed checks the task ends "unverified". The check is
shown as a tool call of its own (`verify_goal`), so every front end shows it and its result.
The goal is kept on the task's record: a resumed task keeps it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from pycline.core.capability import Capability, RunContext
from pycline.core.options import TaskOutcome
from pycline.core.turn import Step
from pycline.events import ToolFinished, ToolOutput, ToolStarted
from pycline.messages import TextContent
from pycline.prompts import responses
from pycline.terminal.process import ShellProcess
from pycline.terminal.sandbox import SandboxPolicy, SandboxUnavailable
from pycline.tools.base import ToolCall
from pycline.tools.interaction import VERIFY_GOAL_SPEC

DEFAULT_MAX_ATTEMPTS = 5
CHECK_TOOL = VERIFY_GOAL_SPEC.name
OUTPUT_TAIL = 4_000  # characters of the check's output the model is sent
CHECK_TIMEOUT = 600.0


@dataclass(frozen=True, slots=True)
class CheckResult:
    code: int | None  # None: it did not finish (timed out) or could not start
    output: str

    @property
    def passed(self) -> bool:
        return self.code == 0

    def status(self) -> str:
        if self.code is None:
            return "did not finish"
        return f"exit code {self.code}" if self.code >= 0 else f"killed by signal {-self.code}"


async def run_check(
    command: str,
    cwd: Path,
    sandbox: SandboxPolicy | None,
    *,
    say: Callable[[ToolOutput], None],
    timeout: float,
) -> CheckResult:
    """Run the check in the workspace (inside the sandbox when one is on)."""
    policy = sandbox if sandbox is not None and sandbox.enabled else None
    try:
        process = await ShellProcess.start(
            command, cwd, on_output=lambda text: say(ToolOutput(text)), sandbox=policy
        )
    except (SandboxUnavailable, OSError) as exc:
        return CheckResult(None, f"The check could not be started: {exc}")
    try:
        code = await process.wait(timeout)
        if code is None or process.is_running():
            await process.terminate(2.0)
    finally:
        process.close()
    text = process.output.text()
    if code is None:
        text += f"\n(the check was stopped after {timeout:g}s)"
    return CheckResult(code, text)


class GoalCheck(Capability):
    """Runs the goal's check before a completion is accepted; ends the task "unverified" when
    the attempts run out. `sandbox`: the task's command sandbox."""

    def __init__(self, sandbox: SandboxPolicy | None, *, timeout: float = CHECK_TIMEOUT) -> None:
        self.sandbox = sandbox
        self.timeout = timeout
        self.failures = 0
        self._gave_up = ""

    async def answer_instead(self, ctx: RunContext, call: ToolCall, call_id: str) -> Step | None:
        goal = ctx.record.goal
        if call.name != "attempt_completion" or not goal:
            return None
        check_id = f"{call_id or 'completion'}-verify-{self.failures + 1}"
        summary = f"{CHECK_TOOL} {goal}"
        ctx.say(ToolStarted(CHECK_TOOL, summary, check_id))

        def say(event: ToolOutput) -> None:
            ctx.say(ToolOutput(event.text, check_id))

        result = await run_check(
            goal, ctx.workspace.root, self.sandbox, say=say, timeout=self.timeout
        )
        shown = f"The check `{goal}` passed." if result.passed else _failed_text(goal, result)
        ctx.say(ToolFinished(CHECK_TOOL, summary, result.passed, shown, check_id))
        if result.passed:
            return None
        self.failures += 1
        limit = ctx.record.goal_max_attempts or DEFAULT_MAX_ATTEMPTS
        text = _failed_text(goal, result) + _attempts_note(self.failures, limit)
        if self.failures >= limit:
            self._gave_up = (
                f"unverified: the check `{goal}` still failed ({result.status()}) after "
                f"{self.failures} verification attempts"
            )
        header = responses.tool_header("attempt_completion")
        return Step([TextContent(f"{header}\n{text}")])

    async def after_step(self, ctx: RunContext) -> TaskOutcome | None:
        if not self._gave_up:
            return None
        return TaskOutcome(False, self._gave_up, unverified=True)


def _failed_text(goal: str, result: CheckResult) -> str:
    tail = result.output.strip("\n")
    if len(tail) > OUTPUT_TAIL:
        tail = "…" + tail[-OUTPUT_TAIL:]
    return (
        f"The task is not complete: the user's check `{goal}` failed ({result.status()}).\n"
        f"Output (tail):\n{tail or '(none)'}"
    )


def _attempts_note(failures: int, limit: int) -> str:
    left = limit - failures
    if left <= 0:
        return "\n\nNo verification attempts are left."
    return (
        f"\n\nFix what the check reports, then call attempt_completion again "
        f"({left} verification attempt{'s' if left != 1 else ''} left)."
    )
