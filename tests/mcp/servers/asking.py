"""A stdio MCP server whose tools ask the user for input (elicitation, form and URL modes)."""

from __future__ import annotations

from mcp.server.mcpserver import Context, MCPServer
from pydantic import BaseModel

server = MCPServer("asking")


class Order(BaseModel):
    flavour: str
    scoops: int = 2


@server.tool(description="Order an ice cream: asks which flavour and how many scoops.")
async def order(ctx: Context) -> str:
    result = await ctx.elicit("Which ice cream would you like?", Order)
    if result.action == "accept" and result.data is not None:
        return f"accepted: {result.data.scoops} x {result.data.flavour}"
    return result.action


@server.tool(description="Sends the user to a page to confirm.")
async def confirm(ctx: Context) -> str:
    result = await ctx.elicit_url("Confirm on the page.", "http://127.0.0.1:9/confirm", "e-1")
    return result.action


if __name__ == "__main__":
    server.run()
