"""A stdio MCP server whose tool takes as long as it is told to (for timeouts)."""

from __future__ import annotations

import anyio
from mcp.server.mcpserver import MCPServer

server = MCPServer("slow")


@server.tool(description="Wait, then answer.")
async def wait(seconds: float) -> str:
    await anyio.sleep(seconds)
    return f"waited {seconds}s"


@server.tool(description="Answer at once.")
def quick() -> str:
    return "quick"


if __name__ == "__main__":
    server.run()
