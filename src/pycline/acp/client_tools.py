"""Reading, writing and running commands through the editor, when the client offers it.

With `fs/read_text_file` the model sees the editor's unsaved buffers; with `fs/write_text_file` a
saved edit lands in the editor's buffer too; with `terminal/*` commands run in the editor's
terminal where the user watches them — inside the same sandbox as local commands (the editor
starts bubblewrap, which sets the cleaned environment). Without these capabilities the local
tools do the work.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import shlex
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from pycline.acp.tool_calls import ActiveCall, CallReporter
from pycline.app.builders.tool_parts import (
    EXECUTE_COMMAND_SPEC,
    IMAGE_SUFFIXES,
    READ_FILE_SPEC,
    ReadFileTool,
    SandboxUnavailable,
    approve_command,
    blocked_message,
    converter_for,
    format_page,
    git_checked,
    parse_range,
    prepared,
    sandbox_in,
    take_page,
)
from pycline.app.settings.home import pycline_home
from pycline.errors import ToolError
from pycline.tools.base import ToolCall, ToolContext, ToolResult, ToolSpec

OUTPUT_BYTE_LIMIT = 1_000_000
KILL_WAIT = 5.0  # seconds to wait for a killed terminal to report its exit


class ClientConnection(Protocol):
    """The client calls these tools use (`acp.AgentSideConnection` has them)."""

    async def read_text_file(
        self, session_id: str, path: str, line: int | None = None, limit: int | None = None
    ) -> Any: ...

    async def write_text_file(self, session_id: str, path: str, content: str) -> Any: ...

    async def create_terminal(
        self,
        session_id: str,
        command: str,
        args: list[str] | None = None,
        env: Any = None,
        cwd: str | None = None,
        output_byte_limit: int | None = None,
    ) -> Any: ...

    async def terminal_output(self, session_id: str, terminal_id: str) -> Any: ...

    async def wait_for_terminal_exit(self, session_id: str, terminal_id: str) -> Any: ...

    async def kill_terminal(self, session_id: str, terminal_id: str) -> Any: ...

    async def release_terminal(self, session_id: str, terminal_id: str) -> Any: ...


class HasId(Protocol):
    @property
    def id(self) -> str: ...


@dataclass(frozen=True, slots=True)
class Client:
    conn: ClientConnection
    session: HasId  # read late: a new session learns its id once its task folder exists

    @property
    def session_id(self) -> str:
        return self.session.id


class ClientReadFileTool:
    """read_file through `fs/read_text_file`; images and documents are still read locally."""

    spec: ToolSpec = READ_FILE_SPEC

    def __init__(self, client: Client) -> None:
        self.client = client
        self.local = ReadFileTool()

    def summary(self, call: ToolCall) -> str:
        return self.local.summary(call)

    async def run(self, call: ToolCall, ctx: ToolContext) -> ToolResult:
        target = ctx.resolve(call.require("path"))
        if converter_for(target.path) is not None or target.path.suffix.lower() in IMAGE_SUFFIXES:
            return await self.local.run(call, ctx)
        start, end = parse_range(call.get("start_line"), call.get("end_line"))
        if ctx.access.blocked(target.path):
            raise ToolError(blocked_message(target.display))
        refused = await self.local.ask(call, ctx, target)
        if refused is not None:
            return refused
        from acp import RequestError

        try:
            reply = await self.client.conn.read_text_file(self.client.session_id, str(target.path))
        except RequestError as exc:
            raise ToolError(f"Could not read {target.display}: {exc}") from exc
        lines = str(reply.content).splitlines(keepends=True)
        page = take_page(lines, start, end)
        return ToolResult(format_page(page, len(lines), start, end))


def mirror_write(client: Client) -> Any:
    """After a saved edit: hand the file's new content to the editor (`fs/write_text_file`)."""

    async def after(active: ActiveCall, ctx: ToolContext, result: ToolResult) -> None:
        path = active.params.get("path")
        if path is None or active.kind != "edit":
            return
        target = ctx.resolve(path)
        try:
            content = await asyncio.to_thread(target.path.read_text, encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return  # nothing the editor can show as text
        from acp import RequestError

        with contextlib.suppress(RequestError):  # the file is saved either way
            await client.conn.write_text_file(client.session_id, str(target.path), content)

    return after


class ClientCommandTool:
    """execute_command in the editor's terminal (`terminal/create`, then wait, output, release)."""

    spec: ToolSpec = EXECUTE_COMMAND_SPEC

    def __init__(self, client: Client, reporter: CallReporter) -> None:
        self.client = client
        self.reporter = reporter

    def summary(self, call: ToolCall) -> str:
        from pycline.tools.base import describe

        return describe(self.spec.name, call.get("command"))

    async def run(self, call: ToolCall, ctx: ToolContext) -> ToolResult:
        # The editor's terminal only shows the command: it runs in the same sandbox as a local
        # one (bubblewrap is what the editor starts), so the same checks apply.
        sandbox = sandbox_in(ctx)
        asked = await approve_command(self.spec.name, self.summary(call), call, ctx, sandbox)
        if isinstance(asked, ToolResult):
            return asked
        command, timeout, sandbox = asked.command, asked.timeout, asked.sandbox
        try:
            # The editor starts the process with its own environment: the sandbox sets ours,
            # without secrets, itself.
            ready = await prepared(command, ctx.cwd, sandbox=sandbox, for_another_spawner=True)
        except SandboxUnavailable as exc:
            raise ToolError(f"The command was not run: {exc}") from exc
        with labelled(ready.argv, command) as (launcher, label):
            run = functools.partial(self._execute, command, [launcher, *label], timeout, ctx)
            return await git_checked(ctx, sandbox, run)

    async def _execute(
        self, command: str, argv: list[str], timeout: float, ctx: ToolContext
    ) -> ToolResult:
        from acp import RequestError

        conn, sid = self.client.conn, self.client.session_id
        try:
            created = await conn.create_terminal(
                sid,
                argv[0],
                args=argv[1:],
                cwd=str(ctx.cwd),
                output_byte_limit=OUTPUT_BYTE_LIMIT,
            )
        except RequestError as exc:
            raise ToolError(f"The editor could not start the command: {exc}") from exc
        terminal_id = str(created.terminal_id)
        active = self.reporter.current
        if active is not None:
            self.reporter.terminal(active, terminal_id)
        timed_out = False
        try:
            try:
                exit_ = await asyncio.wait_for(
                    conn.wait_for_terminal_exit(sid, terminal_id), timeout
                )
            except TimeoutError:
                timed_out = True
                await conn.kill_terminal(sid, terminal_id)
                exit_ = await asyncio.wait_for(
                    conn.wait_for_terminal_exit(sid, terminal_id), KILL_WAIT
                )
            out = await conn.terminal_output(sid, terminal_id)
        except asyncio.CancelledError:
            await asyncio.shield(_kill_and_release(conn, sid, terminal_id))
            raise
        except (RequestError, TimeoutError) as exc:
            await asyncio.shield(_kill_and_release(conn, sid, terminal_id))
            raise ToolError(f"The editor's terminal failed: {exc}") from exc
        with contextlib.suppress(RequestError):
            await conn.release_terminal(sid, terminal_id)
        return ToolResult(_result_text(command, ctx, exit_, out, timed_out, timeout))


LAUNCHER = "pycline-sandboxed"


@contextlib.contextmanager
def labelled(argv: list[str], command: str) -> Iterator[tuple[str, list[str]]]:
    """What `terminal/create` gets: a launcher script holding the whole prepared command line
    (the sandbox's bubblewrap options, the cleaned environment, the shell), and the agent's own
    command as its one argument, so the editor shows and asks about `python3 -m pytest -q`,
    not thirty lines of sandbox. The argument is only a label: the script runs what it holds.
    It lives in a private folder of pycline's data folder while the command runs."""
    runtime = pycline_home() / "run"
    runtime.mkdir(parents=True, exist_ok=True, mode=0o700)
    folder = Path(tempfile.mkdtemp(prefix="cmd-", dir=runtime))
    script = folder / LAUNCHER
    try:
        script.write_text(
            "#!/bin/sh\n# pycline: the agent's command (the argument, for show) in its sandbox.\n"
            f"exec {shlex.join(argv)}\n",
            encoding="utf-8",
        )
        script.chmod(0o700)
        yield str(script), [command]
    finally:
        shutil.rmtree(folder, ignore_errors=True)


async def _kill_and_release(conn: ClientConnection, sid: str, terminal_id: str) -> None:
    from acp import RequestError

    with contextlib.suppress(RequestError, OSError, ConnectionError):
        await conn.kill_terminal(sid, terminal_id)
        await conn.release_terminal(sid, terminal_id)


def _result_text(
    command: str, ctx: ToolContext, exit_: Any, out: Any, timed_out: bool, timeout: float
) -> str:
    text = str(out.output).strip("\n")
    output = f"Output:\n{text}" if text.strip() else "Output: (none)"
    if out.truncated:
        output = f"{output}\n[The start of the output was dropped: it was too long.]"
    if timed_out:
        return (
            f"Command timed out after {timeout:g}s in {ctx.cwd} and was stopped. If it is a "
            f"server or watcher, it cannot be run this way.\n{output}"
        )
    status = f"killed by signal {exit_.signal}" if exit_.signal else f"exit code {exit_.exit_code}"
    return f"Command executed in {ctx.cwd} in the editor's terminal ({status}).\n{output}"
