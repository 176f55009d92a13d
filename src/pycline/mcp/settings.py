"""`cline_mcp_settings.json`: Cline's MCP server file, read and written unchanged in shape.

    {"mcpServers": {"name": {"command": "...", "args": [...], "env": {...}, "cwd": "..."}}}
    {"mcpServers": {"name": {"url": "...", "headers": {...}, "type": "sse" | "streamableHttp"}}}

plus, for every server, `disabled`, `autoApprove` (tool names) and `timeout` (seconds, default 60).
A server with `command` runs over stdio; a URL without `type` means SSE, as in Cline. The legacy
`transportType` field is honoured (`"http"` meant streamable HTTP).

Two files are merged: the global one, `PYCLINE_HOME/settings/cline_mcp_settings.json`, and the
workspace's `.pycline/mcp.json` (same shape), whose entries replace global ones of the same name.

A file that cannot be read or parsed yields an error message, never an exception; one bad server
entry is reported on that server alone, the others still load. Writes (the `pycline mcp` commands)
edit the raw JSON so fields we do not know survive, and are atomic.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, TypeAlias

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from pycline.errors import ConfigError
from pycline.parsing import json_limits
from pycline.storage.atomic import atomic_write_json
from pycline.storage.paths import pycline_home
from pycline.workspace.confined import MAX_SETTINGS_BYTES, read_file

SETTINGS_FILE_NAME = "cline_mcp_settings.json"
WORKSPACE_FILE = Path(".pycline") / "mcp.json"
DEFAULT_TIMEOUT = 60.0

TransportKind: TypeAlias = Literal["stdio", "sse", "streamableHttp"]
Source: TypeAlias = Literal["global", "workspace", "session"]  # session: handed in by a front end
TrustCheck: TypeAlias = Callable[[Path, bytes], bool]


def global_settings_path() -> Path:
    return pycline_home() / "settings" / SETTINGS_FILE_NAME


def workspace_settings_path(workspace: Path) -> Path:
    return workspace / WORKSPACE_FILE


class _Common(BaseModel):
    # Cline strips unknown keys when it validates; we ignore them the same way.
    model_config = ConfigDict(extra="ignore", frozen=True, populate_by_name=True)

    disabled: bool = False
    auto_approve: tuple[str, ...] = Field(default=(), alias="autoApprove")
    # Cline's minimum is 1 s; any positive value is accepted so short timeouts can be tested.
    timeout: float = Field(default=DEFAULT_TIMEOUT, gt=0)


class StdioServer(_Common):
    type: Literal["stdio"] = "stdio"
    command: str = Field(min_length=1)
    args: tuple[str, ...] = ()
    env: dict[str, str] = Field(default_factory=dict)
    cwd: str | None = None


class OAuthSettings(BaseModel):
    """A remote server's `oauth` entry: how pycline logs in to it (all optional).

    `clientId`/`clientSecret`: a client registered with the authorization server beforehand
    (then pycline does not register itself); `clientMetadataUrl`: an https URL serving pycline's
    client ID metadata document, used where the server supports those; `scopes`: what to ask
    for (default: what the server's challenge or metadata names); `callbackPort`: a fixed port
    for the loopback redirect (default: any free one).
    """

    model_config = ConfigDict(extra="ignore", frozen=True, populate_by_name=True)

    client_id: str | None = Field(default=None, alias="clientId")
    client_secret: str | None = Field(default=None, alias="clientSecret")
    client_metadata_url: str | None = Field(default=None, alias="clientMetadataUrl")
    token_endpoint_auth_method: (
        Literal["none", "client_secret_basic", "client_secret_post"] | None
    ) = Field(default=None, alias="tokenEndpointAuthMethod")
    scopes: tuple[str, ...] = ()
    callback_port: int | None = Field(default=None, alias="callbackPort", ge=1, le=65535)

    def __repr__(self) -> str:  # never show the secret
        return f"OAuthSettings(client_id={self.client_id!r})"


class RemoteServer(_Common):
    type: Literal["sse", "streamableHttp"] = "sse"
    url: str
    headers: dict[str, str] = Field(default_factory=dict)
    oauth: OAuthSettings | None = None

    @field_validator("url")
    @classmethod
    def _http_url(cls, value: str) -> str:
        if not value.startswith(("http://", "https://")):
            raise ValueError("URL must start with http:// or https://")
        return value


ServerConfig: TypeAlias = StdioServer | RemoteServer


@dataclass(frozen=True, slots=True)
class ServerEntry:
    """One named server as the files describe it: a valid config, or why it is not one."""

    name: str
    source: Source
    config: ServerConfig | None
    error: str = ""

    @property
    def disabled(self) -> bool:
        return self.config is not None and self.config.disabled


@dataclass(frozen=True, slots=True)
class McpSettings:
    servers: dict[str, ServerEntry] = field(default_factory=dict)
    errors: tuple[str, ...] = ()  # whole-file problems (bad JSON, wrong shape)
    untrusted: Path | None = None  # a project file whose servers were left out (see mcp.trust)


def _transport_of(raw: dict[str, Any]) -> str:
    declared = raw.get("type")
    if isinstance(declared, str):
        return declared
    legacy = raw.get("transportType")
    if "command" in raw:
        return "stdio"
    if legacy in ("http", "streamableHttp"):
        return "streamableHttp"
    return "sse"


def parse_server(raw: object) -> ServerConfig:
    """Validate one server entry; raises ConfigError with a readable reason."""
    if not isinstance(raw, dict):
        raise ConfigError("a server entry must be a JSON object")
    kind = _transport_of(raw)
    data = {k: v for k, v in raw.items() if k not in ("type", "transportType")}
    try:
        if kind == "stdio":
            return StdioServer.model_validate({**data, "type": "stdio"})
        if kind in ("sse", "streamableHttp"):
            return RemoteServer.model_validate({**data, "type": kind})
    except ValidationError as exc:
        raise ConfigError(_describe_validation(exc)) from exc
    raise ConfigError(f"unknown type {kind!r} (expected stdio, sse or streamableHttp)")


def _describe_validation(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors():
        where = ".".join(str(p) for p in err["loc"]) or "entry"
        parts.append(f"{where}: {err['msg']}")
    return "; ".join(parts)


def read_raw(path: Path, content: bytes | None = None) -> dict[str, Any]:
    """The file's JSON object (`{"mcpServers": {}}` when absent). Raises ConfigError.

    `content`: the file's bytes, when the caller has read them already.
    """
    try:
        data_bytes = read_file(path, MAX_SETTINGS_BYTES, whole=True) if content is None else content
    except FileNotFoundError:
        return {"mcpServers": {}}
    except OSError as exc:
        raise ConfigError(f"{path}: cannot be read ({exc.strerror or exc})") from exc
    try:
        text = data_bytes.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not UTF-8 text") from exc
    if not text.strip():
        return {"mcpServers": {}}
    try:
        data = json_limits.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(
            f"{path}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})"
        ) from exc
    except json_limits.TooDeep as exc:
        raise ConfigError(f"{path}: not valid JSON ({exc})") from exc
    if not isinstance(data, dict):
        raise ConfigError(f'{path}: expected a JSON object like {{"mcpServers": {{...}}}}')
    servers = data.setdefault("mcpServers", {})
    if not isinstance(servers, dict):
        raise ConfigError(f'{path}: "mcpServers" must be an object mapping names to servers')
    return data


def load_file(path: Path, source: Source, content: bytes | None = None) -> McpSettings:
    try:
        raw = read_raw(path, content)
    except ConfigError as exc:
        return McpSettings(errors=(str(exc),))
    servers: dict[str, ServerEntry] = {}
    for name, entry in raw["mcpServers"].items():
        try:
            servers[name] = ServerEntry(name, source, parse_server(entry))
        except ConfigError as exc:
            servers[name] = ServerEntry(name, source, None, f"invalid settings in {path}: {exc}")
    return McpSettings(servers)


def load_settings(
    global_path: Path, workspace_path: Path | None = None, *, trusted: TrustCheck | None = None
) -> McpSettings:
    """The global file with the workspace file's servers merged over it (by name).

    With `trusted`, the workspace file counts only when `trusted(path, content)` says yes;
    otherwise its servers are left out and the result's `untrusted` names the file.
    """
    merged = load_file(global_path, "global")
    if workspace_path is None:
        return merged
    try:
        content = read_file(workspace_path, MAX_SETTINGS_BYTES, whole=True)
    except FileNotFoundError:
        return merged
    except OSError:
        content = None  # load_file reports why it cannot be read
    if trusted is not None and content is not None and not trusted(workspace_path, content):
        note = (
            f"{workspace_path}: this project's MCP servers were not started: the file is new or "
            "changed since you last trusted it. Review it, then run `pycline mcp trust`."
        )
        return McpSettings(merged.servers, (*merged.errors, note), untrusted=workspace_path)
    local = load_file(workspace_path, "workspace", content)
    return McpSettings({**merged.servers, **local.servers}, merged.errors + local.errors)


# --- edits (the `pycline mcp` commands) ---------------------------------------------------------


def _edit(path: Path, name: str, change: str, *, new: dict[str, Any] | None = None) -> None:
    data = read_raw(path)
    servers: dict[str, Any] = data["mcpServers"]
    if change == "add":
        assert new is not None
        parse_server(new)  # refuse to write an entry we could not load
        servers[name] = new
    elif name not in servers:
        raise ConfigError(f"no MCP server named {name!r} in {path}")
    elif change == "remove":
        del servers[name]
    else:
        entry = servers[name]
        if not isinstance(entry, dict):
            raise ConfigError(f"the entry for {name!r} in {path} is not a JSON object")
        entry["disabled"] = change == "disable"
    atomic_write_json(path, data)


def add_server(path: Path, name: str, entry: dict[str, Any]) -> None:
    if not name.strip():
        raise ConfigError("a server needs a name")
    _edit(path, name, "add", new=entry)


def remove_server(path: Path, name: str) -> None:
    _edit(path, name, "remove")


def set_disabled(path: Path, name: str, disabled: bool) -> None:
    _edit(path, name, "disable" if disabled else "enable")
