"""An ACP client for the tests (the SDK's client side) and ways to connect it to pycline.

The client records every update, answers permission requests from a list of option kinds,
and can offer the editor's file system (buffers it holds) and terminals (real processes).
"""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import acp
from acp.core import AgentSideConnection, ClientSideConnection
from acp.schema import (
    AllowedOutcome,
    ClientCapabilities,
    CreateTerminalResponse,
    DeniedOutcome,
    FileSystemCapabilities,
    ReadTextFileResponse,
    RequestPermissionResponse,
    TerminalOutputResponse,
    WaitForTerminalExitResponse,
    WriteTextFileResponse,
)

from pycline.acp.agent import PyclineAgent
from pycline.app.sessions.session import ConfigOverrides

COMPLETE = "<attempt_completion>\n<result>All done.</result>\n</attempt_completion>"


def read(path: str) -> str:
    return f"<read_file>\n<path>{path}</path>\n</read_file>"


def write(path: str, text: str) -> str:
    return f"<write_to_file>\n<path>{path}</path>\n<content>\n{text}</content>\n</write_to_file>"


def replace(path: str, search: str, new: str) -> str:
    return (
        f"<replace_in_file>\n<path>{path}</path>\n<diff>\n------- SEARCH\n{search}\n=======\n"
        f"{new}\n+++++++ REPLACE\n</diff>\n</replace_in_file>"
    )


def command(line: str, *, approval: bool = True) -> str:
    flag = "true" if approval else "false"
    return (
        f"<execute_command>\n<command>{line}</command>\n"
        f"<requires_approval>{flag}</requires_approval>\n</execute_command>"
    )


def script_file(tmp: Path, *replies: str | dict[str, Any]) -> Path:
    path = tmp / f"script-{len(list(tmp.glob('script-*')))}.json"
    path.write_text(json.dumps(list(replies)), encoding="utf-8")
    return path


@dataclass
class Terminal:
    process: asyncio.subprocess.Process
    output: bytearray = field(default_factory=bytearray)
    reader: asyncio.Task[None] | None = None


class RecordingClient:
    def __init__(
        self,
        *,
        answers: list[str] | None = None,
        fs: bool = False,
        terminal: bool = False,
        buffers: dict[str, str] | None = None,
    ) -> None:
        self.answers = list(answers or [])
        self.fs = fs
        self.terminal = terminal
        self.buffers = dict(buffers or {})  # path -> unsaved editor text
        self.updates: list[Any] = []
        self.permissions: list[tuple[Any, list[Any]]] = []
        self.asked_after: list[int] = []  # how many updates had arrived at each permission request
        self.reads: list[str] = []
        self.writes: list[tuple[str, str]] = []
        self.terminals: dict[str, Terminal] = {}
        self.released: list[str] = []
        self.first_message_at: float | None = None
        self._ids = itertools.count(1)
        self.permission_asked = asyncio.Event()
        self.update_seen = asyncio.Event()

    def capabilities(self) -> ClientCapabilities:
        return ClientCapabilities(
            fs=FileSystemCapabilities(read_text_file=self.fs, write_text_file=self.fs),
            terminal=self.terminal,
        )

    # --- what the agent calls ----------------------------------------------------------------

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        if update.session_update == "agent_message_chunk" and self.first_message_at is None:
            self.first_message_at = asyncio.get_running_loop().time()
        self.updates.append(update)
        self.update_seen.set()

    async def request_permission(
        self, session_id: str, tool_call: Any, options: list[Any], **kwargs: Any
    ) -> RequestPermissionResponse:
        self.permissions.append((tool_call, options))
        self.asked_after.append(len(self.updates))
        self.permission_asked.set()
        kind = self.answers.pop(0) if self.answers else "allow_once"
        if kind == "cancelled":
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        if kind == "hang":
            await asyncio.Event().wait()  # the test cancels the turn meanwhile
        option = next(o for o in options if o.kind == kind)
        return RequestPermissionResponse(
            outcome=AllowedOutcome(outcome="selected", option_id=option.option_id)
        )

    async def read_text_file(
        self,
        session_id: str,
        path: str,
        line: int | None = None,
        limit: int | None = None,
        **kw: Any,
    ) -> ReadTextFileResponse:
        self.reads.append(path)
        if path in self.buffers:
            return ReadTextFileResponse(content=self.buffers[path])
        return ReadTextFileResponse(content=Path(path).read_text(encoding="utf-8"))

    async def write_text_file(
        self, session_id: str, path: str, content: str, **kw: Any
    ) -> WriteTextFileResponse:
        self.writes.append((path, content))
        self.buffers[path] = content
        return WriteTextFileResponse()

    async def create_terminal(
        self,
        session_id: str,
        command: str,
        args: list[str] | None = None,
        env: Any = None,
        cwd: str | None = None,
        output_byte_limit: int | None = None,
        **kw: Any,
    ) -> CreateTerminalResponse:
        process = await asyncio.create_subprocess_exec(
            command,
            *(args or []),
            cwd=cwd,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
            start_new_session=True,
        )
        term = Terminal(process)

        async def pump() -> None:
            assert process.stdout is not None
            while chunk := await process.stdout.read(4096):
                term.output.extend(chunk)

        term.reader = asyncio.create_task(pump())
        terminal_id = f"term-{next(self._ids)}"
        self.terminals[terminal_id] = term
        return CreateTerminalResponse(terminal_id=terminal_id)

    async def terminal_output(self, session_id: str, terminal_id: str, **kw: Any) -> Any:
        term = self.terminals[terminal_id]
        status = None
        if term.process.returncode is not None:
            status = acp.schema.TerminalExitStatus(exit_code=term.process.returncode)
        return TerminalOutputResponse(
            output=term.output.decode(errors="replace"), truncated=False, exit_status=status
        )

    async def wait_for_terminal_exit(self, session_id: str, terminal_id: str, **kw: Any) -> Any:
        term = self.terminals[terminal_id]
        code = await term.process.wait()
        if term.reader is not None:
            await term.reader
        return WaitForTerminalExitResponse(exit_code=code)

    async def kill_terminal(self, session_id: str, terminal_id: str, **kw: Any) -> None:
        term = self.terminals[terminal_id]
        if term.process.returncode is None:
            os.killpg(term.process.pid, 9)

    async def release_terminal(self, session_id: str, terminal_id: str, **kw: Any) -> None:
        self.released.append(terminal_id)
        await self.kill_terminal(session_id, terminal_id)
        await self.terminals[terminal_id].process.wait()

    # --- what the tests read -----------------------------------------------------------------

    def of(self, kind: str) -> list[Any]:
        return [u for u in self.updates if u.session_update == kind]

    def message_text(self) -> str:
        return "".join(u.content.text for u in self.of("agent_message_chunk"))

    def tool_calls(self) -> dict[str, dict[str, Any]]:
        """Each tool call with its updates merged, by id."""
        merged: dict[str, dict[str, Any]] = {}
        for u in self.updates:
            if u.session_update not in ("tool_call", "tool_call_update"):
                continue
            entry = merged.setdefault(u.tool_call_id, {"content": []})
            for key in ("title", "kind", "status", "locations", "raw_input"):
                value = getattr(u, key)
                if value is not None:
                    entry[key] = value
            if u.content is not None:
                entry["content"] = u.content
        return merged


@asynccontextmanager
async def in_process(
    client: RecordingClient, home: Path, script: Path
) -> AsyncIterator[tuple[ClientSideConnection, PyclineAgent]]:
    """pycline's agent (scripted) and the client, connected in this process."""
    agent = PyclineAgent(ConfigOverrides(provider="scripted", script=str(script)), home)
    async with connect(client, agent) as pair:
        yield pair


@asynccontextmanager
async def connect(
    client: RecordingClient, agent: PyclineAgent
) -> AsyncIterator[tuple[ClientSideConnection, PyclineAgent]]:
    """An agent and the client, connected over a loopback socket in this process."""
    accepted: asyncio.Queue[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = asyncio.Queue()

    async def on_accept(r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
        await accepted.put((r, w))

    server = await asyncio.start_server(on_accept, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    client_r, client_w = await asyncio.open_connection("127.0.0.1", port)
    agent_r, agent_w = await accepted.get()
    # As `pycline acp` does: resume and close are in the SDK's "unstable" set.
    agent_side = AgentSideConnection(
        agent, agent_w, agent_r, listening=True, use_unstable_protocol=True
    )
    conn = ClientSideConnection(client, client_w, client_r, use_unstable_protocol=True)
    try:
        yield conn, agent
    finally:
        await agent.shutdown()
        await conn.close()
        await agent_side.close()
        server.close()
        await server.wait_closed()


def agent_command(script: Path) -> list[str]:
    return [
        sys.executable,
        "-m",
        "pycline",
        "acp",
        "--provider",
        "scripted",
        "--script",
        str(script),
    ]


@asynccontextmanager
async def subprocess_agent(
    client: RecordingClient, home: Path, script: Path
) -> AsyncIterator[tuple[ClientSideConnection, asyncio.subprocess.Process]]:
    """`pycline acp` as a child process, its stderr passed through (never left unread)."""
    env = {"PYCLINE_HOME": str(home), "PYCLINE_TEST_RUN": os.environ.get("PYCLINE_TEST_RUN", "")}
    env["PYTHON_KEYRING_BACKEND"] = "keyring.backends.fail.Keyring"
    cmd = agent_command(script)
    async with acp.spawn_agent_process(
        client, cmd[0], *cmd[1:], env=env, transport_kwargs={"stderr": None}
    ) as (conn, process):
        yield conn, process


async def start(conn: ClientSideConnection, client: RecordingClient, cwd: Path) -> str:
    await conn.initialize(protocol_version=1, client_capabilities=client.capabilities())
    session = await conn.new_session(cwd=str(cwd), mcp_servers=[])
    return session.session_id


def text(value: str) -> list[Any]:
    return [acp.text_block(value)]


async def wait_until(client: RecordingClient, predicate: Any, timeout: float = 15.0) -> None:
    """Wait (bounded) until `predicate()` holds; re-checked after every update."""
    async with asyncio.timeout(timeout):
        while not predicate():
            client.update_seen.clear()
            await client.update_seen.wait()
