"""execute_command: run a shell command in the workspace, streaming its output to the user.

With `ToolServices.allow_background` and a `background` registry (the task's), a command still
running at its timeout is handed to that registry instead of being killed, and the model is told
it keeps running; the task stops every background process when it ends.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace

from pycline.errors import ToolError
from pycline.events import ALWAYS_ALLOW, APPROVE, DENY, ApprovalQuestion, Option, ToolOutput
from pycline.prompts.responses import DENIED, with_feedback
from pycline.storage.paths import pycline_home
from pycline.terminal import git_guard
from pycline.terminal.process import ShellProcess
from pycline.terminal.sandbox import SandboxPolicy, SandboxUnavailable, limits, unavailable_reason
from pycline.tools.base import (
    ApprovalCategory,
    Interrupted,
    ParamSpec,
    ToolCall,
    ToolContext,
    ToolFacts,
    ToolResult,
    ToolSpec,
    describe,
)
from pycline.workspace.allow_rules import covered, rememberable
from pycline.workspace.command_network import needs_network
from pycline.workspace.command_reach import Reach, command_reach
from pycline.workspace.command_rules import add_rule, workspace_rules
from pycline.workspace.danger import is_dangerous

EXECUTE_COMMAND_SPEC = ToolSpec(
    name="execute_command",
    facts=ToolFacts(
        effect="execute",
        title="Cline wants to execute this command:",
        done_title="Cline ran this command:",
        label="Run {command}",
        kind="execute",
        checkpointed=True,
    ),
    description=(
        "Run a CLI command in the working directory, tailored to the user's OS and shell (chain "
        "steps with the shell's syntax rather than writing scripts). You get the exit code and "
        "the output (long output is cut in the middle). Commands cannot read input: pass flags "
        "such as --yes. For a long-running command (dev server, watcher) set a short timeout, "
        "e.g. 10: it then keeps running in the background, its later output comes in the "
        "environment details. Never read files hidden by .clineignore."
    ),
    params=(
        ParamSpec("command", "The command line to run."),
        ParamSpec(
            "requires_approval",
            "true for impactful operations (installing or removing packages, deleting or "
            "overwriting files, system changes, network access); false for safe ones (reading, "
            "builds, tests, dev servers).",
        ),
        ParamSpec(
            "timeout",
            "Seconds to wait (default: the user's setting); then it continues in the background.",
            required=False,
        ),
        ParamSpec(
            "escalate",
            "Only when the user runs you in auto mode (commands run unasked in a sandbox with "
            "the network off): 'network' to ask the user to run this command with the network.",
            required=False,
        ),
    ),
    example=(
        "<execute_command>\n<command>npm run build</command>\n"
        "<requires_approval>false</requires_approval>\n</execute_command>"
    ),
)

# How long a command may take to stop after SIGTERM before it is killed.
TERMINATE_GRACE = 2.0


def parse_requires_approval(raw: str) -> bool:
    value = raw.strip().lower()
    if value not in ("true", "false"):
        raise ToolError(f"requires_approval must be 'true' or 'false', not {raw.strip()!r}.")
    return value == "true"


def parse_timeout(raw: str | None, default: float) -> float:
    if raw is None:
        return default
    try:
        value = float(raw.strip().removesuffix("s"))
    except ValueError:
        raise ToolError(f"timeout must be a number of seconds, not {raw.strip()!r}.") from None
    if not math.isfinite(value) or value <= 0:
        raise ToolError(f"timeout must be a positive number of seconds, not {raw.strip()!r}.")
    return value


class ExecuteCommandTool:
    spec = EXECUTE_COMMAND_SPEC

    def summary(self, call: ToolCall) -> str:
        return describe(self.spec.name, call.get("command"))

    async def run(self, call: ToolCall, ctx: ToolContext) -> ToolResult:
        sandbox = sandbox_in(ctx)
        asked = await approve_command(self.spec.name, self.summary(call), call, ctx, sandbox)
        if isinstance(asked, ToolResult):
            return asked
        return await self._execute(asked.command, asked.timeout, ctx, asked.sandbox)

    async def _execute(
        self, command: str, timeout: float, ctx: ToolContext, sandbox: SandboxPolicy | None
    ) -> ToolResult:
        return await git_checked(ctx, sandbox, lambda: self._run(command, timeout, ctx, sandbox))

    async def _run(
        self, command: str, timeout: float, ctx: ToolContext, sandbox: SandboxPolicy | None
    ) -> ToolResult:
        try:
            process = await ShellProcess.start(
                command,
                ctx.cwd,
                on_output=lambda text: ctx.say(ToolOutput(text)),
                sandbox=sandbox,
            )
        except SandboxUnavailable as exc:
            raise ToolError(f"The command was not run: {exc}") from exc
        except OSError as exc:
            raise ToolError(f"Could not start the command: {exc}") from exc
        try:
            code, proceeded = await _wait(process, timeout, ctx.services.proceed)
        except asyncio.CancelledError:
            await process.terminate(TERMINATE_GRACE)
            process.close()
            raise Interrupted(ToolResult(_interrupted(process))) from None
        registry = ctx.services.background
        if code is None or process.is_running():
            if registry is not None and ctx.services.allow_background:
                process.show_end()
                process_id = registry.adopt(process)
                if proceeded:
                    return ToolResult(_proceeded(process, process_id))
                return ToolResult(_still_running(process, code, timeout, process_id))
            await process.terminate(TERMINATE_GRACE)
        process.close()
        process.show_end()
        if code is None:
            return ToolResult(_timed_out(process, timeout))
        return ToolResult(_finished(process, code))


@dataclass(frozen=True, slots=True)
class ApprovedCommand:
    command: str
    timeout: float
    sandbox: SandboxPolicy | None  # where it runs: offline when auto mode ran it unasked


async def approve_command(
    tool: str, summary: str, call: ToolCall, ctx: ToolContext, sandbox: SandboxPolicy | None
) -> ApprovedCommand | ToolResult:
    """The checks and the approval every way of running a command shares (locally, or in an
    editor's terminal), decided once: what to run, how long and where, or the refusal."""
    command = call.require("command").strip()
    requires_approval = parse_requires_approval(call.require("requires_approval"))
    timeout = parse_timeout(call.get("timeout"), ctx.command_timeout)
    refusal = ctx.access.command_refusal(command)
    if refusal:
        raise ToolError(refusal)
    if "\x00" in command:
        raise ToolError("The command contains a NUL byte, which no shell can run.")
    danger = is_dangerous(command)
    reach = reach_of(command, ctx)
    # Without a sandbox, a command that reaches past the workspace by its words needs the
    # user; inside one, the sandbox is what keeps it in.
    risk = None if sandbox is not None else reach.risk
    category: ApprovalCategory = (
        "dangerous_command"
        if danger is not None
        else "command"
        if requires_approval or risk is not None
        else "safe_command"
    )
    if danger is not None or risk is not None:
        summary = f"{summary} (needs approval: {danger or risk})"
    if ctx.auto_sandboxed and sandbox is not None:
        needs = auto_needs(command, call, sandbox, danger, reach)
        if needs is None:
            ctx.say(ToolOutput(AUTO_NOTE))
            return ApprovedCommand(command, timeout, sandbox.offline())
        summary = f"{summary} (auto mode asks: {needs})"
    # The user's "always allow" rules never cover what needs a look every time.
    plain = danger is None and risk is None and reach.writes_outside is None
    home, root = pycline_home(), ctx.workspace.root
    if plain and covered(command, await asyncio.to_thread(workspace_rules, home, root)):
        ctx.say(ToolOutput("[pycline] allowed by your rule for this workspace\n"))
        return ApprovedCommand(command, timeout, sandbox)
    rule = rememberable(command) if plain else None
    options: tuple[Option, ...] = (APPROVE, DENY)
    if rule is not None:
        options = (APPROVE, Option(ALWAYS_ALLOW.id, f"Always allow `{rule}` here"), DENY)
    approval = await ctx.approve(
        ApprovalQuestion(tool, summary, preview=command, options=options),
        category,
        outside_workspace=reach.writes_outside is not None,
    )
    if not approval.approved:
        return ToolResult(with_feedback(DENIED, approval.feedback), denied=True)
    if approval.always and rule is not None:
        try:
            await asyncio.to_thread(add_rule, home, root, rule)
        except (OSError, ValueError) as exc:
            ctx.say(ToolOutput(f"[pycline] could not remember `{rule}`: {exc}\n"))
        else:
            ctx.say(ToolOutput(f"[pycline] `{rule}` is now always allowed in this workspace\n"))
    return ApprovedCommand(command, timeout, sandbox)


async def git_checked(
    ctx: ToolContext, sandbox: SandboxPolicy | None, run: Callable[[], Awaitable[ToolResult]]
) -> ToolResult:
    """`run()` (a sandboxed command), then what it did to the workspace's `.git` checked: what
    git would follow elsewhere or run is undone, and the user and the model are told."""
    guarded = sandbox is not None and sandbox.mode == "workspace-write"
    root = sandbox.workspace if sandbox is not None else ctx.workspace.root
    before = await asyncio.to_thread(git_guard.look, root) if guarded else None
    found: list[str] = []
    try:
        result = await run()
    finally:
        if before is not None:
            first = git_guard.first_look(before)
            found = await asyncio.to_thread(git_guard.mended, before, first)
            for line in found:
                ctx.say(ToolOutput(f"[pycline] {line}\n"))
    if found:
        note = "\n".join(f"[pycline] {line}" for line in found)
        result = replace(result, text=f"{result.text}\n{note}")
    return result


AUTO_NOTE = "[pycline] auto (sandboxed): run unasked, network off, writes kept to the workspace\n"


def auto_needs(
    command: str, call: ToolCall, sandbox: SandboxPolicy, danger: str | None, reach: Reach
) -> str | None:
    """In auto mode, what this command needs beyond the offline sandbox (so it asks), from the
    checks every command gets; None: it runs unasked."""
    if not sandbox.enabled:
        return "no sandbox"
    escalate = (call.get("escalate") or "").strip().lower()
    if escalate not in ("", "false", "no", "none"):
        return f"the model asks for {escalate}"
    if danger is not None:
        return danger
    if reach.writes_outside is not None:
        return reach.writes_outside
    return needs_network(command)


def sandbox_in(ctx: ToolContext) -> SandboxPolicy | None:
    """The sandbox commands run in for this task, or None (with a one-time notice to the user
    when the sandbox was wanted by default and cannot be had here)."""
    policy = ctx.services.sandbox
    if policy is None:
        return None
    if policy.enabled:
        limit = limits(policy)
        if limit and not ctx.services.sandbox_notice_shown:
            ctx.services.sandbox_notice_shown = True
            ctx.say(ToolOutput(f"[pycline] {limit}\n"))
        return policy
    if not policy.explicit and not ctx.services.sandbox_notice_shown:
        reason = unavailable_reason()
        if reason:
            ctx.services.sandbox_notice_shown = True
            ctx.say(ToolOutput(f"[pycline] {reason}\n"))
    return None


def reach_of(command: str, ctx: ToolContext) -> Reach:
    access = ctx.access
    return command_reach(
        command,
        root=ctx.workspace.root,
        cwd=ctx.cwd,
        home=pycline_home(),
        blocked=access.blocked,
        ignore_active=bool(getattr(access, "active", False)),
    )


async def _wait(
    process: ShellProcess, timeout: float, proceed: asyncio.Event | None
) -> tuple[int | None, bool]:
    """The exit code (None at the timeout), and whether the user chose to proceed while it runs.

    `proceed` is set by a front end ("Proceed While Running"); without one this is just waiting
    for the process.
    """
    if proceed is None:
        return await process.wait(timeout), False
    proceed.clear()  # a click meant for an earlier command does not count
    waiting = asyncio.ensure_future(process.wait(timeout))
    told = asyncio.ensure_future(proceed.wait())
    try:
        await asyncio.wait((waiting, told), return_when=asyncio.FIRST_COMPLETED)
    finally:
        told.cancel()
    if waiting.done():
        return waiting.result(), False
    waiting.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await waiting
    return None, True


def _proceeded(process: ShellProcess, process_id: int) -> str:
    return (
        f"The user chose to proceed while the command keeps running in {process.cwd} (background "
        f"process {process_id}); its new output will be reported later. Continue with the task.\n"
        f"{_output_section(process)}"
    )


def _output_section(process: ShellProcess) -> str:
    text = process.output.text().strip("\n")
    return f"Output:\n{text}" if text.strip() else "Output: (none)"


def _finished(process: ShellProcess, code: int) -> str:
    # A negative code means the shell died from a signal.
    status = f"exit code {code}" if code >= 0 else f"killed by signal {-code}"
    return (
        f"Command executed in {process.cwd} ({status}, {process.duration:.1f}s).\n"
        f"{_output_section(process)}"
    )


def _interrupted(process: ShellProcess) -> str:
    # The first line is also what the terminal shows the user.
    return (
        f"The user interrupted this command after {process.duration:.1f}s, before it finished.\n"
        f"It ran in {process.cwd} and was stopped with everything it started; do not assume it "
        f"succeeded.\n{_output_section(process)}"
    )


def _timed_out(process: ShellProcess, timeout: float) -> str:
    return (
        f"Command timed out after {timeout:g}s in {process.cwd} and was stopped "
        "(with everything it started). If it is a server or watcher, it cannot be run this way; "
        "if it is just slow, retry with a larger timeout.\n"
        f"{_output_section(process)}"
    )


def _still_running(process: ShellProcess, code: int | None, timeout: float, process_id: int) -> str:
    if code is None:
        reason = f"Command is still running after {timeout:g}s"
    else:
        reason = f"The shell exited (code {code}) but processes it started are still running"
    return (
        f"{reason} in {process.cwd}; it continues in the background (process {process_id}) and "
        "its new output will be reported later. Continue with the task.\n"
        f"{_output_section(process)}"
    )
