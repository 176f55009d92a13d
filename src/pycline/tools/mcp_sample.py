"""An MCP server's request for a completion (sampling), made by the task's own model once the
user approves it (an MCP action, so the auto-approval rules for MCP apply). The user sees what
the server sends; the model's answer goes back to the server, its cost to the task."""

from __future__ import annotations

from pycline.events import ApprovalQuestion
from pycline.mcp.client_requests import Sampler, SamplingReply, SamplingRequest
from pycline.messages import Message
from pycline.tools.base import ToolContext

PREVIEW_CHARS = 4_000


def preview(request: SamplingRequest) -> str:
    parts = [f"system: {request.system}"] if request.system else []
    parts += [f"{role}: {text}" for role, text in request.messages]
    shown = "\n\n".join(parts)
    return shown if len(shown) <= PREVIEW_CHARS else shown[:PREVIEW_CHARS] + "\n…"


def sampler_for(ctx: ToolContext, tool: str) -> Sampler | None:
    """Who answers the server's sampling requests during this call (None: the task has no
    model to lend)."""
    complete = ctx.complete
    if complete is None:
        return None

    async def sample(request: SamplingRequest) -> SamplingReply:
        approval = await ctx.approve(
            ApprovalQuestion(
                tool,
                f"MCP server '{request.server}' asks your model for a completion",
                preview=preview(request),
            ),
            "mcp",
            outside_workspace=False,
        )
        if not approval.approved:
            return SamplingReply(refused="the user declined")
        messages = [
            Message.user(text) if role == "user" else Message.assistant(text)
            for role, text in request.messages
        ]
        done = await complete(request.system, messages)
        if isinstance(done, str):
            return SamplingReply(refused=done)
        return SamplingReply(text=done[0], model=done[1])

    return sample
