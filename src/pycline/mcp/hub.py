"""The MCP hub: every configured server, connected, watched and restarted.

- `start()` reads the settings files and connects every enabled server in parallel.
- A watcher polls the settings files; a change reconnects exactly the servers whose connection
  settings changed (a new `autoApprove` or `timeout` applies without reconnecting).
- A server that dies after it was connected is restarted with exponential backoff; after
  `RestartPolicy.max_attempts` failures in a row it stays in `error` until restarted by hand or
  its settings change. A server that fails its very first connect is not retried automatically:
  that is usually a wrong command or URL, and respawning it helps nobody.
- `call_tool` / `read_resource` check the server, the tool and the arguments (against the tool's
  input schema) and are bounded by the server's `timeout`.

Tools reach the hub through `ToolServices.mcp_hub` (see `pycline.tools.mcp_tools`).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pycline.errors import PeerToolError, ToolError
from pycline.mcp.connection import McpConnection
from pycline.mcp.model import McpOutput, ServerState
from pycline.mcp.schema import check_arguments
from pycline.mcp.settings import (
    McpSettings,
    ServerConfig,
    ServerEntry,
    TrustCheck,
    global_settings_path,
    load_settings,
    workspace_settings_path,
)

if TYPE_CHECKING:
    from pycline.mcp.client_requests import Elicitor, Sampler
    from pycline.mcp.oauth import LoginPolicy


@dataclass(frozen=True, slots=True)
class RestartPolicy:
    base_delay: float = 1.0  # seconds before the first restart; doubles each time
    max_delay: float = 30.0
    max_attempts: int = 5  # consecutive failed restarts before giving up
    stable_after: float = 30.0  # a connection that lived this long resets the count

    def delay(self, attempt: int) -> float:
        return float(min(self.base_delay * 2 ** (attempt - 1), self.max_delay))


def _connection_key(config: ServerConfig) -> dict[str, Any]:
    # What requires a new connection when it changes; autoApprove and timeout do not.
    return config.model_dump(exclude={"auto_approve", "timeout", "disabled"})


def _file_signature(path: Path | None) -> tuple[int, int, int] | None:
    if path is None:
        return None
    try:
        st = path.stat()
    except OSError:
        return None
    return (st.st_ino, st.st_mtime_ns, st.st_size)


class McpHub:
    def __init__(
        self,
        *,
        settings_path: Path | None = None,
        workspace: Path | None = None,
        watch_interval: float | None = 1.0,
        restart: RestartPolicy | None = None,
        connect_timeout: float = 30.0,
        trusted: TrustCheck | None = None,
        extra_servers: Mapping[str, ServerConfig] | None = None,
        login: LoginPolicy | None = None,
        elicitation: Literal["decline", "defaults"] = "decline",
    ) -> None:
        # Where remote servers' OAuth tokens live and whether a login may open the browser.
        self.login = login
        # How a server's request for input is answered when no front end takes it.
        self.elicitation = elicitation
        self.settings_path = settings_path or global_settings_path()
        # None: the workspace file is used as it is (callers that already asked the user).
        self.trusted = trusted
        self.untrusted_file: Path | None = None
        self.workspace = workspace
        self.workspace_path = workspace_settings_path(workspace) if workspace else None
        self.watch_interval = watch_interval
        self.restart_policy = restart or RestartPolicy()
        self.connect_timeout = connect_timeout
        # Servers a front end hands in (an editor's own list): they win over the files by name.
        self.extra_servers = dict(extra_servers or {})
        self.settings_errors: tuple[str, ...] = ()
        self._entries: dict[str, ServerEntry] = {}
        self._conns: dict[str, McpConnection] = {}
        self._supervisors: dict[str, asyncio.Task[None]] = {}
        self._restarts: dict[str, int] = {}
        self._lock = asyncio.Lock()
        self._changed = asyncio.Event()
        self._watcher: asyncio.Task[None] | None = None
        self._signature: tuple[object, ...] = ()
        self._closing = False

    # --- lifecycle --------------------------------------------------------------------------

    async def start(self) -> None:
        await self.reload()
        if self.watch_interval is not None and self._watcher is None:
            self._watcher = asyncio.create_task(self._watch(), name="mcp:settings-watcher")

    async def close(self) -> None:
        self._closing = True
        if self._watcher is not None:
            self._watcher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._watcher
            self._watcher = None
        async with self._lock:
            await asyncio.gather(*(self._stop(name) for name in list(self._conns)))

    async def __aenter__(self) -> McpHub:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def reload(self) -> None:
        """Re-read the settings files and bring the connections in line with them.

        The lock covers the bookkeeping only, not the connecting: a server that takes its whole
        connect timeout never hides one added meanwhile (it is listed as connecting at once)."""
        async with self._lock:
            self._signature = self._current_signature()
            starting = await self._apply(self._load())
        await asyncio.gather(*(self._connected(name, conn) for name, conn in starting))
        self._bump()

    def read_settings(self) -> None:
        """Load the settings without connecting (for commands that connect one server)."""
        settings = self._load()
        self.settings_errors = settings.errors
        self._entries = dict(settings.servers)

    async def restart_server(self, name: str) -> ServerState:
        """Reconnect one server now (also after the hub gave up on it)."""
        async with self._lock:
            entry = self._entries.get(name)
            if entry is None:
                raise ToolError(f"No MCP server named '{name}' is configured.")
            await self._stop(name)
            self._restarts.pop(name, None)
            if entry.config is not None and not entry.disabled:
                await self._connect(name, entry.config)
        state = self.server(name)
        assert state is not None
        return state

    # --- what the rest of pycline reads ------------------------------------------------------

    def servers(self) -> list[ServerState]:
        return [s for name in self._entries if (s := self.server(name)) is not None]

    def connected(self) -> list[ServerState]:
        return [s for s in self.servers() if s.status == "connected"]

    def server(self, name: str) -> ServerState | None:
        entry = self._entries.get(name)
        if entry is None:
            return None
        transport = entry.config.type if entry.config is not None else None
        if entry.config is None:
            return ServerState(name, None, entry.source, "error", error=entry.error)
        if entry.disabled:
            return ServerState(name, transport, entry.source, "disabled", config=entry.config)
        conn = self._conns.get(name)
        if conn is None:
            return ServerState(name, transport, entry.source, "disconnected", config=entry.config)
        return ServerState(
            name,
            transport,
            entry.source,
            conn.status,
            config=entry.config,
            error=conn.error,
            stderr_tail=conn.stderr_tail(),
            tools=conn.tools,
            resources=conn.resources,
            templates=conn.templates,
            server_version=conn.server_version,
            instructions=conn.instructions,
            restarts=self._restarts.get(name, 0),
            garbage_lines=conn.garbage_lines,
            needs_login=conn.needs_login,
        )

    def is_auto_approved(self, server: str, tool: str) -> bool:
        entry = self._entries.get(server)
        return entry is not None and entry.config is not None and tool in entry.config.auto_approve

    async def wait_until(self, predicate: Callable[[], bool], timeout: float) -> bool:
        """Wait (bounded) until `predicate()` holds; it is re-checked after every state change."""
        try:
            async with asyncio.timeout(timeout):
                while not predicate():
                    await self._changed.wait()
        except TimeoutError:
            return predicate()
        return True

    # --- requests ---------------------------------------------------------------------------

    def _connection_for(self, server: str) -> McpConnection:
        state = self.server(server)
        if state is None:
            known = ", ".join(sorted(self._entries)) or "none"
            raise ToolError(f"No MCP server named '{server}'. Configured servers: {known}.")
        conn = self._conns.get(server)
        if state.status != "connected" or conn is None:
            if state.needs_login:
                raise PeerToolError(state.error)
            why = f": {state.error}" if state.error else ""
            raise PeerToolError(f"MCP server '{server}' is not connected ({state.status}){why}.")
        return conn

    def check_server(self, server: str) -> None:
        """Raise a ToolError unless the server exists and is connected."""
        self._connection_for(server)

    def check_tool_call(self, server: str, tool: str, arguments: dict[str, Any]) -> None:
        """Raise a ToolError unless the server is connected, has the tool, and the arguments fit."""
        self._checked_connection(server, tool, arguments)

    def _checked_connection(
        self, server: str, tool: str, arguments: dict[str, Any]
    ) -> McpConnection:
        conn = self._connection_for(server)
        known = next((t for t in conn.tools if t.name == tool), None)
        if known is None:
            names = ", ".join(t.name for t in conn.tools) or "none"
            raise ToolError(
                f"MCP server '{server}' has no tool named '{tool}'. Its tools: {names}."
            )
        check_arguments(tool, arguments, known.input_schema)
        return conn

    async def call_tool(
        self,
        server: str,
        tool: str,
        arguments: dict[str, Any],
        *,
        elicitor: Elicitor | None = None,
        sampler: Sampler | None = None,
        roots: Sequence[Path] = (),
    ) -> McpOutput:
        """Call a tool; `elicitor` answers the server's requests for input meanwhile (None: the
        hub's policy, `elicitation`), `sampler` its requests for a completion (None: refused);
        `roots`: the calling task's folders (none: the hub's workspace)."""
        conn = self._checked_connection(server, tool, arguments)
        return await conn.call_tool(
            tool, arguments, elicitor=elicitor, sampler=sampler, roots=roots
        )

    async def read_resource(self, server: str, uri: str) -> McpOutput:
        return await self._connection_for(server).read_resource(uri)

    # --- internals --------------------------------------------------------------------------

    def _load(self) -> McpSettings:
        settings = load_settings(self.settings_path, self.workspace_path, trusted=self.trusted)
        self.untrusted_file = settings.untrusted
        if not self.extra_servers:
            return settings
        given = {n: ServerEntry(n, "session", c) for n, c in self.extra_servers.items()}
        return dataclasses.replace(settings, servers={**settings.servers, **given})

    def _bump(self) -> None:
        # Wake every waiter, then arm a fresh event for the next change.
        self._changed.set()
        self._changed = asyncio.Event()

    def _current_signature(self) -> tuple[object, ...]:
        return (_file_signature(self.settings_path), _file_signature(self.workspace_path))

    async def _watch(self) -> None:
        assert self.watch_interval is not None
        while True:
            await asyncio.sleep(self.watch_interval)  # polling: no file-watching dependency
            if self._current_signature() != self._signature:
                await self.reload()

    async def _apply(self, settings: McpSettings) -> list[tuple[str, McpConnection]]:
        """The entries and connections as `settings` say; the new connections, to connect."""
        self.settings_errors = settings.errors
        old = self._entries
        self._entries = dict(settings.servers)
        to_stop: list[str] = []
        to_start: list[tuple[str, ServerConfig]] = []
        for name in old.keys() - settings.servers.keys():
            to_stop.append(name)
        for name, entry in settings.servers.items():
            before = old.get(name)
            running = name in self._conns
            wanted = entry.config is not None and not entry.disabled
            if not wanted:
                if running:
                    to_stop.append(name)
                continue
            assert entry.config is not None
            same = (
                before is not None
                and before.config is not None
                and _connection_key(before.config) == _connection_key(entry.config)
            )
            if running and same:
                self._conns[name].config = entry.config  # new timeout / autoApprove, same link
                continue
            if running:
                to_stop.append(name)
            self._restarts.pop(name, None)
            to_start.append((name, entry.config))
        await asyncio.gather(*(self._stop(name) for name in to_stop))
        starting = [(name, self._new_connection(name, config)) for name, config in to_start]
        self._bump()
        return starting

    async def _connect(self, name: str, config: ServerConfig) -> None:
        conn = self._new_connection(name, config)
        self._bump()
        await self._connected(name, conn)

    async def _connected(self, name: str, conn: McpConnection) -> None:
        """Connect `conn`, then watch over it (unless it was replaced or stopped meanwhile)."""
        if self._conns.get(name) is not conn:
            return
        if await conn.connect() and self._conns.get(name) is conn and not self._closing:
            self._supervisors[name] = asyncio.create_task(
                self._supervise(name, conn), name=f"mcp:supervise:{name}"
            )
        self._bump()

    def _new_connection(self, name: str, config: ServerConfig) -> McpConnection:
        conn = McpConnection(
            name,
            config,
            connect_timeout=self.connect_timeout,
            cwd=self.workspace,
            login=self.login,
            elicitation=self.elicitation,
        )
        self._conns[name] = conn
        return conn

    async def _stop(self, name: str) -> None:
        supervisor = self._supervisors.pop(name, None)
        if supervisor is not None:
            supervisor.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await supervisor
        conn = self._conns.pop(name, None)
        if conn is not None:
            await conn.close()
        self._bump()

    async def _supervise(self, name: str, conn: McpConnection) -> None:
        """Restart `conn` whenever it dies on its own, with backoff."""
        policy = self.restart_policy
        while True:
            await conn.closed.wait()
            if self._closing or conn.stop_requested or self._conns.get(name) is not conn:
                return
            if conn.connected_at is not None and (
                time.monotonic() - conn.connected_at >= policy.stable_after
            ):
                self._restarts[name] = 0
            attempt = self._restarts.get(name, 0) + 1
            if attempt > policy.max_attempts:
                conn.error = f"{conn.error} (gave up after {policy.max_attempts} restarts)"
                self._bump()
                return
            self._restarts[name] = attempt
            self._bump()
            await asyncio.sleep(policy.delay(attempt))
            if self._closing or self._conns.get(name) is not conn:
                return
            conn = self._new_connection(name, conn.config)
            self._bump()
            await conn.connect()
            self._bump()
