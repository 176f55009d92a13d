"""A stdio MCP server whose tools ask the client for a completion by its model (sampling) and
for its roots."""

from __future__ import annotations

import warnings

from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.exceptions import MCPError
from mcp_types import SamplingMessage, TextContent

server = MCPServer("sampling")


@server.tool(description="Writes a haiku about a topic, with the client's model.")
async def haiku(topic: str, ctx: Context) -> str:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # deprecated in the 2026-07-28 revision, still served
        try:
            result = await ctx.session.create_message(
                [
                    SamplingMessage(
                        role="user",
                        content=TextContent(type="text", text=f"A haiku about {topic}."),
                    )
                ],
                max_tokens=60,
                system_prompt="Answer with the poem only.",
                related_request_id=ctx.request_id,
            )
        except MCPError as exc:
            return f"no haiku: {exc.error.message}"
    content = result.content
    text = content.text if isinstance(content, TextContent) else "?"
    return f"haiku by {result.model}: {text}"


@server.tool(description="Lists the client's roots.")
async def where(ctx: Context) -> str:
    listed = await ctx.session.list_roots()
    return " ".join(str(root.uri) for root in listed.roots)


if __name__ == "__main__":
    server.run()
