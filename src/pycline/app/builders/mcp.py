"""MCP management for every front end: the servers in the settings files, their status, trust.

Edits go to the global `cline_mcp_settings.json`, or with `project=True` to the workspace's
`.pycline/mcp.json`. A project's file runs commands, so its servers start only once the user
trusted its exact content (`pycline.mcp.trust`): a front end shows `TrustRequest.description`
and, if the user agrees, calls `grant` with the same request, so exactly what was shown is
trusted. What the user changes in a trusted project file through these functions stays trusted.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeAlias, assert_never

from pycline.errors import ConfigError
from pycline.mcp.model import ServerState
from pycline.mcp.settings import RemoteServer, ServerConfig, StdioServer
from pycline.workspace.confined import MAX_SETTINGS_BYTES, read_file

if TYPE_CHECKING:
    from pycline.mcp.hub import McpHub

__all__ = [
    "CONNECT_TIMEOUT",
    "Change",
    "DefinedElsewhere",
    "NewServer",
    "RemoteServer",
    "ServerConfig",
    "ServerState",
    "ServersReport",
    "StdioServer",
    "TrustRequest",
    "add_server",
    "change_server",
    "check_server",
    "check_servers",
    "grant",
    "is_project_server",
    "pending_trust",
    "set_tool_auto_approve",
    "settings_file",
    "trust_project",
    "untrusted_file",
]

CONNECT_TIMEOUT = 30.0

Change: TypeAlias = Literal["remove", "enable", "disable"]


# --- trust ---------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TrustRequest:
    file: Path
    content: bytes  # the bytes that were described: a later edit needs asking again
    description: list[str]  # one line per server: what it would run


def untrusted_file(home: Path, workspace: Path) -> Path | None:
    """The workspace's MCP file when the user has not trusted it as it is now."""
    from pycline.mcp.trust import McpTrust

    return McpTrust(home).untrusted_file(workspace)


def pending_trust(home: Path, workspace: Path) -> TrustRequest | None:
    """The workspace's MCP file when it is new or changed since the user trusted it."""
    from pycline.mcp.trust import McpTrust, describe

    file = McpTrust(home).untrusted_file(workspace)
    if file is None:
        return None
    try:
        content = read_file(file, MAX_SETTINGS_BYTES, whole=True)
    except OSError:
        return None  # gone or unreadable since: the hub reports it
    return TrustRequest(file, content, list(describe(file, content)))


def grant(home: Path, request: TrustRequest) -> None:
    from pycline.mcp.trust import McpTrust

    McpTrust(home).trust(request.file, request.content)


def trust_project(home: Path, workspace: Path) -> TrustRequest:
    """Trust the workspace's MCP file as it is now (the user asked for it by name); returns
    what was trusted. ConfigError when there is no file to trust."""
    from pycline.mcp.settings import workspace_settings_path
    from pycline.mcp.trust import describe

    file = workspace_settings_path(workspace)
    try:
        content = read_file(file, MAX_SETTINGS_BYTES, whole=True)
    except FileNotFoundError:
        raise ConfigError(f"{file} does not exist; nothing to trust") from None
    except OSError as exc:
        raise ConfigError(f"cannot read {file}: {exc.strerror or exc}") from None
    request = TrustRequest(file, content, list(describe(file, content)))
    grant(home, request)
    return request


# --- editing the settings files ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class NewServer:
    """A server to add: a stdio server's command line, or a remote server's URL."""

    command: tuple[str, ...] = ()
    url: str | None = None
    transport: Literal["sse", "streamableHttp"] = "streamableHttp"
    headers: Mapping[str, str] = field(default_factory=dict)  # remote only
    env: Mapping[str, str] = field(default_factory=dict)  # stdio only
    cwd: str | None = None  # stdio only
    timeout: float | None = None  # seconds per request; None: the default
    auto_approve: tuple[str, ...] = ()  # tools that run without asking

    @classmethod
    def parse(cls, text: str) -> NewServer:
        """One line as a user types it: a URL (streamable HTTP), else a command line."""
        text = text.strip()
        if text.startswith(("http://", "https://")):
            return cls(url=text)
        try:
            words = shlex.split(text)
        except ValueError as exc:  # an unclosed quote
            raise ConfigError(f"cannot read the command: {exc}") from None
        if not words:
            raise ConfigError("give a command or a URL")
        return cls(command=tuple(words))

    def entry(self) -> dict[str, Any]:
        """The settings file's entry for this server."""
        if bool(self.command) == bool(self.url):
            raise ConfigError("give either a command to run (stdio) or a URL (remote)")
        entry: dict[str, Any]
        if self.url:
            entry = {"type": self.transport, "url": self.url}
            if self.headers:
                entry["headers"] = dict(self.headers)
        else:
            entry = {"command": self.command[0], "args": list(self.command[1:])}
            if self.env:
                entry["env"] = dict(self.env)
            if self.cwd:
                entry["cwd"] = self.cwd
        if self.timeout is not None:
            entry["timeout"] = self.timeout
        entry["autoApprove"] = list(self.auto_approve)
        entry["disabled"] = False
        return entry


class DefinedElsewhere(ConfigError):
    """The server is not in the file that was edited but in the other one (`file`)."""

    def __init__(self, message: str, file: Path) -> None:
        super().__init__(message)
        self.file = file


def settings_file(workspace: Path, *, project: bool) -> Path:
    """The file edits go to: the workspace's with `project`, else the global one."""
    from pycline.mcp.settings import global_settings_path, workspace_settings_path

    return workspace_settings_path(workspace) if project else global_settings_path()


def add_server(
    home: Path, workspace: Path, name: str, server: NewServer, *, project: bool = False
) -> Path:
    """Add (or replace) server `name`; returns the file written."""
    from pycline.mcp import settings as mcp_settings

    entry = server.entry()
    return _edit(home, workspace, project, lambda file: mcp_settings.add_server(file, name, entry))


def change_server(
    home: Path, workspace: Path, name: str, change: Change, *, project: bool = False
) -> Path:
    """Remove, enable or disable server `name`; returns the file written. DefinedElsewhere
    when the server is only in the other file."""
    from pycline.mcp import settings as mcp_settings

    def apply(file: Path) -> None:
        match change:
            case "remove":
                mcp_settings.remove_server(file, name)
            case "enable" | "disable":
                mcp_settings.set_disabled(file, name, change == "disable")
            case _:
                assert_never(change)

    try:
        return _edit(home, workspace, project, apply)
    except ConfigError as exc:
        other = settings_file(workspace, project=not project)
        if name in _names_in(other):
            raise DefinedElsewhere(str(exc), other) from exc
        raise


def is_project_server(hub: McpHub | None, name: str) -> bool:
    """Whether the running server `name` comes from the workspace's file (else the global one)."""
    state = hub.server(name) if hub is not None else None
    if state is None:
        raise ConfigError(f"No MCP server named {name!r}.")
    return state.source == "workspace"


def set_tool_auto_approve(home: Path, server: str, tool: str, approve: bool) -> None:
    """Add `tool` to (or take it off) the settings' `mcpAutoApprove` list for `server`."""
    from pycline.app.settings.config import load_settings, locked, settings_path, write_settings

    with locked(settings_path(home)):
        data = load_settings(home)
        table = data.setdefault("mcpAutoApprove", {})
        tools = set(table.get(server, []))
        (tools.add if approve else tools.discard)(tool)
        table[server] = sorted(tools)
        write_settings(settings_path(home), data, home=home, workspace=False)


def always_allow_mcp_tool(home: Path, server: str, tool: str) -> None:
    """The user's "Always allow" for one MCP tool, kept in the global settings."""
    set_tool_auto_approve(home, server, tool, True)


def _edit(home: Path, workspace: Path, project: bool, apply: Callable[[Path], None]) -> Path:
    from pycline.mcp.trust import McpTrust
    from pycline.storage.atomic import locked

    file = settings_file(workspace, project=project)
    trust = McpTrust(home)
    with locked(file):
        # What the user writes through us stays trusted; a file they had not trusted stays
        # untrusted.
        keep_trust = project and trust.untrusted_file(workspace) is None
        apply(file)
        if keep_trust:
            trust.trust(file)
    return file


def _names_in(path: Path) -> set[str]:
    from pycline.mcp.settings import read_raw

    try:
        return set(read_raw(path)["mcpServers"])
    except ConfigError:
        return set()


# --- connecting to check ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ServersReport:
    settings_path: Path  # the global settings file
    settings_errors: tuple[str, ...]
    servers: tuple[ServerState, ...]


async def check_servers(
    home: Path, workspace: Path, *, timeout: float = CONNECT_TIMEOUT
) -> ServersReport:
    """Connect every configured server once (in parallel) and report how each one is."""
    hub = _hub(home, workspace, timeout)
    try:
        await hub.start()
        return ServersReport(hub.settings_path, hub.settings_errors, tuple(hub.servers()))
    finally:
        await hub.close()


async def check_server(
    home: Path, workspace: Path, name: str, *, timeout: float = CONNECT_TIMEOUT
) -> ServerState:
    """Connect server `name` alone and report how it is (tools, resources, error).
    ToolError when no server has that name."""
    hub = _hub(home, workspace, timeout)
    try:
        hub.read_settings()
        return await hub.restart_server(name)
    finally:
        await hub.close()


def _hub(home: Path, workspace: Path, timeout: float) -> McpHub:
    from pycline.app.builders.mcp_login import login_policy
    from pycline.mcp.hub import McpHub
    from pycline.mcp.settings import global_settings_path
    from pycline.mcp.trust import McpTrust

    return McpHub(
        settings_path=global_settings_path(),
        workspace=workspace,
        watch_interval=None,
        connect_timeout=timeout,
        trusted=McpTrust(home).is_trusted,
        # Checking a server never opens a browser: one that needs a login says so.
        login=login_policy(home, interactive=False),
    )
