"""A well-behaved stdio MCP server: a few tools, a resource and a resource template."""

from __future__ import annotations

import os

from mcp.server.mcpserver import Image, MCPServer
from mcp.server.mcpserver.exceptions import ToolError

# A 1x1 transparent PNG.
PIXEL = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082"
)

server = MCPServer(os.environ.get("SERVER_NAME", "normal"))


@server.tool(description="Add two integers.")
def add(a: int, b: int) -> str:
    return str(a + b)


@server.tool(description="The server's process id (tells one connection from the next).")
def pid() -> str:
    return str(os.getpid())


@server.tool(description="Return the text in capitals.")
def shout(text: str) -> str:
    return text.upper()


@server.tool(description="Return a tiny picture and a caption.", structured_output=False)
def picture() -> list[object]:
    return ["a pixel", Image(data=PIXEL, format="png")]


@server.tool(description="Always fails.")
def fail(reason: str = "it broke") -> str:
    raise ToolError(reason)


@server.resource("note://hello", name="hello", description="A greeting.", mime_type="text/plain")
def hello() -> str:
    return "Hello from the note resource."


@server.resource("note://items/{item}", name="item", description="One item by name.")
def item(item: str) -> str:
    return f"item {item}"


if __name__ == "__main__":
    server.run()
