"""MCP trust for every front end: which project MCP file waits for the user's say, and granting it.

A project's `.pycline/mcp.json` runs commands, so its servers start only once the user trusted
its exact content (`pycline.mcp.trust`). A front end shows `TrustRequest.description` and, if the
user agrees, calls `grant` with the same request: exactly what was shown is trusted.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True, slots=True)
class TrustRequest:
    file: Path
    content: bytes  # the bytes that were described: a later edit needs asking again
    description: list[str]  # one line per server: what it would run


def pending_trust(home: Path, workspace: Path) -> TrustRequest | None:
    """The workspace's MCP file when it is new or changed since the user trusted it."""
    from pycline.mcp.trust import McpTrust, describe

    file = McpTrust(home).untrusted_file(workspace)
    if file is None:
        return None
    try:
        content = file.read_bytes()
    except OSError:
        return None  # gone or unreadable since: the hub reports it
    return TrustRequest(file, content, list(describe(file, content)))


def grant(home: Path, request: TrustRequest) -> None:
    from pycline.mcp.trust import McpTrust

    McpTrust(home).trust(request.file, request.content)
