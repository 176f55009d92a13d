"""A streamable-HTTP MCP server (the SDK's), stateless: it speaks the 2026-07-28 revision to a
client that asks for it, and the earlier handshake to one that does not. With `--modern-only`
it refuses the handshake as a server of 2026-07-28 alone does (-32022, naming its versions).

    python modern_http.py PORT [--modern-only]
"""

from __future__ import annotations

import json
import sys
from typing import Any

import uvicorn
from mcp.server.mcpserver import MCPServer

server = MCPServer("modern")
HANDSHAKE = {"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"}


@server.tool(description="Return the text in capitals.")
def shout(text: str) -> str:
    return text.upper()


def modern_only(app: Any) -> Any:
    async def wrapped(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await app(scope, receive, send)
            return
        headers = dict(scope["headers"])
        version = headers.get(b"mcp-protocol-version", b"").decode()
        if version and version not in HANDSHAKE:
            await app(scope, receive, send)
            return
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        request = json.loads(body or b"{}")
        reply = {
            "jsonrpc": "2.0",
            "id": request.get("id"),
            "error": {
                "code": -32022,
                "message": "Unsupported protocol version",
                "data": {"supported": ["2026-07-28"], "requested": version or None},
            },
        }
        payload = json.dumps(reply).encode()
        status = 400 if request.get("id") is not None else 202
        await send(
            {
                "type": "http.response.start",
                "status": status,
                "headers": [(b"content-type", b"application/json")],
            }
        )
        await send({"type": "http.response.body", "body": payload if status == 400 else b""})

    return wrapped


if __name__ == "__main__":
    port = int(sys.argv[1])
    app = server.streamable_http_app(stateless_http=True, json_response=True, host="127.0.0.1")
    if "--modern-only" in sys.argv:
        app = modern_only(app)
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")
