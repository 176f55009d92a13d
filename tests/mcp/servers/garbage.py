"""A stdio MCP server that prints lines that are not JSON-RPC to stdout."""

from __future__ import annotations

import os

from mcp.server.mcpserver import MCPServer

os.write(1, b"Welcome to the garbage server!\n{not json at all\n\x00\xff binary junk\n")
# The SDK points fd 1 at stderr while it serves, to protect the protocol; a copy of the real pipe
# lets the tool misbehave the way a careless server (or a child process it starts) would.
RAW_STDOUT = os.dup(1)

server = MCPServer("garbage")


@server.tool(description="Print junk to stdout, then answer.")
def noisy() -> str:
    os.write(RAW_STDOUT, b"debug: about to answer\n[1, 2, 3]\n")
    return "still fine"


if __name__ == "__main__":
    server.run()
