"""Logging in to remote MCP servers (OAuth), for every front end.

Tokens go to pycline's secrets store (the OS keyring, or `secrets.json` at 0600), never to a
settings file. `login` connects one server with the browser allowed and keeps what the login
gave; `logout` revokes and forgets it. Sessions connect with `login_policy(home, interactive=…)`:
a terminal session or `pycline run --mcp-login` may open the browser, a headless run may not (a
server that needs a login then fails its tools with a message naming `pycline mcp login`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from pycline.errors import ConfigError, ToolError
from pycline.mcp.model import ServerState
from pycline.mcp.settings import RemoteServer

if TYPE_CHECKING:
    from pycline.mcp.oauth import LoginPolicy

Announce = Callable[[str, str], None]  # (server, authorization URL)
Elicitation = Literal["decline", "defaults"]


@dataclass(frozen=True, slots=True)
class McpOptions:
    """How a session's MCP connections log in and answer a server's requests for input
    (`elicitation`: decline them, or accept a form with its schema's defaults)."""

    login: LoginPolicy | None = None
    elicitation: Elicitation = "decline"


def login_policy(
    home: Path,
    *,
    interactive: bool,
    announce: Announce | None = None,
    open_browser: Callable[[str], object] | None = None,
) -> LoginPolicy:
    from pycline.app.settings.secrets import SecretStore, SecretVault
    from pycline.mcp.oauth import LoginPolicy

    policy = LoginPolicy(SecretVault(SecretStore(home)), interactive=interactive, announce=announce)
    if open_browser is not None:
        policy.open_browser = open_browser
    return policy


def _remote(home: Path, workspace: Path, name: str) -> RemoteServer:
    from pycline.mcp.settings import global_settings_path, load_settings, workspace_settings_path
    from pycline.mcp.trust import McpTrust

    settings = load_settings(
        global_settings_path(),
        workspace_settings_path(workspace),
        trusted=McpTrust(home).is_trusted,
    )
    entry = settings.servers.get(name)
    if entry is None:
        known = ", ".join(sorted(settings.servers)) or "none"
        raise ToolError(f"No MCP server named '{name}' is configured. Configured servers: {known}.")
    if entry.config is None:
        raise ConfigError(entry.error)
    if not isinstance(entry.config, RemoteServer):
        raise ConfigError(f"MCP server '{name}' runs locally (stdio): it has no login.")
    return entry.config


async def login(
    home: Path,
    workspace: Path,
    name: str,
    *,
    announce: Announce | None = None,
    open_browser: Callable[[str], object] | None = None,
    timeout: float = 300.0,
) -> ServerState:
    """Connect `name` with the browser allowed; the tokens it gets are kept. ToolError/ConfigError
    when there is no such remote server."""
    from pycline.mcp.hub import McpHub
    from pycline.mcp.settings import global_settings_path
    from pycline.mcp.trust import McpTrust

    _remote(home, workspace, name)
    policy = login_policy(home, interactive=True, announce=announce, open_browser=open_browser)
    policy.timeout = timeout
    hub = McpHub(
        settings_path=global_settings_path(),
        workspace=workspace,
        watch_interval=None,
        connect_timeout=timeout + 30.0,
        trusted=McpTrust(home).is_trusted,
        login=policy,
    )
    try:
        hub.read_settings()
        return await hub.restart_server(name)
    finally:
        await hub.close()


async def logout(home: Path, workspace: Path, name: str) -> tuple[bool, str]:
    """Revoke (where the server supports it) and forget the server's tokens.
    Returns (there were tokens, a note on revocation)."""
    from pycline.app.settings.secrets import SecretStore, SecretVault
    from pycline.mcp import oauth

    config = _remote(home, workspace, name)
    return await oauth.logout(name, config, SecretVault(SecretStore(home)))


def has_login(home: Path, name: str, config: RemoteServer) -> bool:
    from pycline.app.settings.secrets import SecretStore, SecretVault
    from pycline.mcp import oauth

    try:
        return oauth.has_login(name, config, SecretVault(SecretStore(home)))
    except ConfigError:
        return False
