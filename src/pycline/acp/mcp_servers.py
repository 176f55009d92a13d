"""The MCP servers an editor hands in with `session/new` / `session/load`, as pycline configs."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from pydantic import ValidationError

from pycline.app.builders.mcp import RemoteServer, ServerConfig, StdioServer

log = logging.getLogger("pycline.acp")


def client_servers(given: Sequence[Any]) -> dict[str, ServerConfig]:
    """stdio, streamable HTTP and SSE servers by name; others are skipped with a log line."""
    found: dict[str, ServerConfig] = {}
    for server in given:
        kind = getattr(server, "type", None) or "stdio"
        try:
            match kind:
                case "stdio":
                    found[server.name] = StdioServer(
                        command=server.command,
                        args=tuple(server.args),
                        env={v.name: v.value for v in server.env},
                    )
                case "http" | "sse":
                    found[server.name] = RemoteServer(
                        type="streamableHttp" if kind == "http" else "sse",
                        url=server.url,
                        headers={h.name: h.value for h in server.headers},
                    )
                case _:
                    log.warning("MCP server %s: transport %s is not supported", server.name, kind)
        except ValidationError as exc:
            log.warning("MCP server %s left out: %s", server.name, exc.errors()[0]["msg"])
    return found
