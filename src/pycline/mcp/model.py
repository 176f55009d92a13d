"""What the MCP hub knows about servers, in our own types (no `mcp` import needed to use them)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

from pycline.mcp.settings import DEFAULT_TIMEOUT, ServerConfig, Source, TransportKind

ServerStatus: TypeAlias = Literal["connecting", "connected", "disconnected", "error", "disabled"]


@dataclass(frozen=True, slots=True)
class McpTool:
    name: str
    description: str
    input_schema: dict[str, Any]


@dataclass(frozen=True, slots=True)
class McpResource:
    uri: str
    name: str
    description: str = ""
    mime_type: str = ""


@dataclass(frozen=True, slots=True)
class McpResourceTemplate:
    uri_template: str
    name: str
    description: str = ""
    mime_type: str = ""


@dataclass(frozen=True, slots=True)
class TextPart:
    text: str
    kind: Literal["text"] = "text"


@dataclass(frozen=True, slots=True)
class ImagePart:
    mime_type: str
    data_b64: str
    kind: Literal["image"] = "image"


@dataclass(frozen=True, slots=True)
class BinaryPart:
    """Content the model cannot read as text (audio, a non-image blob): described, not sent."""

    description: str
    kind: Literal["binary"] = "binary"


McpPart: TypeAlias = TextPart | ImagePart | BinaryPart


@dataclass(frozen=True, slots=True)
class McpOutput:
    """A tool call's or a resource read's content. `is_error`: the tool itself reported failure."""

    parts: tuple[McpPart, ...]
    is_error: bool = False


@dataclass(frozen=True, slots=True)
class ServerState:
    """A snapshot of one configured server, for the prompt, the CLI and the UI."""

    name: str
    transport: TransportKind | None  # None: the settings entry is invalid
    source: Source
    status: ServerStatus
    config: ServerConfig | None = None
    error: str = ""
    stderr_tail: str = ""
    tools: tuple[McpTool, ...] = ()
    resources: tuple[McpResource, ...] = ()
    templates: tuple[McpResourceTemplate, ...] = ()
    server_version: str = ""
    instructions: str = ""
    restarts: int = 0  # automatic restarts since the last successful, stable connection
    garbage_lines: int = 0  # stdout lines that were not JSON-RPC
    needs_login: bool = False  # a remote server asked for an OAuth login that was not made

    @property
    def auto_approve(self) -> tuple[str, ...]:
        return self.config.auto_approve if self.config is not None else ()

    @property
    def timeout(self) -> float:
        return self.config.timeout if self.config is not None else DEFAULT_TIMEOUT

    def tool(self, name: str) -> McpTool | None:
        return next((t for t in self.tools if t.name == name), None)
