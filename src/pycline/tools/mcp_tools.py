"""`use_mcp_tool` and `access_mcp_resource`: the model's way to MCP servers (SPEC §2, §13).

The tools find the hub in `ToolServices.mcp_hub` (an `McpHub`, see `pycline.mcp.hub`); the
task's wiring puts it there. Approval category "mcp"; a tool listed in its server's `autoApprove`
(or in the settings' `mcpAutoApprove`) runs without asking.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from pycline.errors import PyclineError, ToolError
from pycline.events import ALWAYS_ALLOW, APPROVE, DENY, ApprovalQuestion, Option, ToolOutput
from pycline.mcp.hub import McpHub
from pycline.mcp.model import BinaryPart, ImagePart, McpOutput, TextPart
from pycline.mcp.schema import parse_arguments
from pycline.messages import ImageContent
from pycline.prompts.responses import DENIED, with_feedback
from pycline.tools.base import (
    ParamSpec,
    ToolCall,
    ToolContext,
    ToolFacts,
    ToolResult,
    ToolSpec,
    describe,
)

USE_MCP_TOOL_SPEC = ToolSpec(
    name="use_mcp_tool",
    facts=ToolFacts(
        effect="mcp",
        title="Cline wants to use a tool on an MCP server:",
        done_title="Cline used a tool on an MCP server:",
        label="{server_name}: {tool_name}",
        kind="other",
        checkpointed=True,
    ),
    description=(
        "Call a tool of a connected MCP server. The servers, their tools and each tool's input "
        "schema are listed in the MCP SERVERS section."
    ),
    params=(
        ParamSpec("server_name", "The name of the MCP server providing the tool."),
        ParamSpec("tool_name", "The name of the tool to call."),
        ParamSpec(
            "arguments", "A JSON object with the tool's arguments, matching its input schema."
        ),
    ),
    example=(
        "<use_mcp_tool>\n<server_name>weather</server_name>\n<tool_name>forecast</tool_name>\n"
        '<arguments>\n{"city": "Lisbon", "days": 3}\n</arguments>\n</use_mcp_tool>'
    ),
)

ACCESS_MCP_RESOURCE_SPEC = ToolSpec(
    name="access_mcp_resource",
    facts=ToolFacts(
        effect="mcp",
        title="Cline wants to access a resource on an MCP server:",
        done_title="Cline read a resource on an MCP server:",
        label="Read {uri} ({server_name})",
        kind="read",
    ),
    description=(
        "Read a resource of a connected MCP server: a listed resource URI, or a URI built from "
        "one of its resource templates."
    ),
    params=(
        ParamSpec("server_name", "The name of the MCP server providing the resource."),
        ParamSpec("uri", "The URI of the resource."),
    ),
    example=(
        "<access_mcp_resource>\n<server_name>docs</server_name>\n"
        "<uri>docs://guide/install</uri>\n</access_mcp_resource>"
    ),
)

NO_CONTENT = "(The MCP server returned no content.)"


def _always_allow(
    ctx: ToolContext, remember: Callable[[str, str], None], server: str, tool: str
) -> None:
    """From now on `tool` runs unasked: in this task at once, and in later ones (saved)."""
    table = dict(ctx.services.mcp_auto_approve)
    table[server] = frozenset({*table.get(server, ()), tool})
    ctx.services.mcp_auto_approve = table
    try:
        remember(server, tool)
    except (OSError, PyclineError) as exc:
        ctx.say(ToolOutput(f'[pycline] could not save "always allow {tool}": {exc}\n'))


def auto_approved(ctx: ToolContext, hub: McpHub, server: str, tool: str) -> bool:
    in_settings = tool in ctx.services.mcp_auto_approve.get(server, ())
    return in_settings or hub.is_auto_approved(server, tool)


def hub_of(ctx: ToolContext) -> McpHub:
    hub = ctx.services.mcp_hub
    if hub is None:
        raise ToolError("MCP servers are not available in this session.")
    return hub


def render(output: McpOutput, *, supports_images: bool) -> tuple[str, tuple[ImageContent, ...]]:
    """The text for the model (text parts joined) and the images it may see."""
    texts: list[str] = []
    images: list[ImageContent] = []
    for part in output.parts:
        match part:
            case TextPart():
                texts.append(part.text)
            case ImagePart():
                if supports_images:
                    images.append(ImageContent(part.mime_type, part.data_b64))
                else:
                    texts.append(
                        f"[An image ({part.mime_type}) was returned, but the current model "
                        "cannot view images.]"
                    )
            case BinaryPart():
                texts.append(part.description)
    text = "\n\n".join(t for t in texts if t.strip())
    if images:
        count = "an image" if len(images) == 1 else f"{len(images)} images"
        text = f"{text}\n\n[The result includes {count}, attached.]".strip()
    return text, tuple(images)


class UseMcpToolTool:
    spec = USE_MCP_TOOL_SPEC

    def summary(self, call: ToolCall) -> str:
        server, tool = call.get("server_name"), call.get("tool_name")
        return describe(self.spec.name, f"{server}/{tool}" if server and tool else server)

    async def run(self, call: ToolCall, ctx: ToolContext) -> ToolResult:
        server = call.require("server_name").strip()
        tool = call.require("tool_name").strip()
        arguments = parse_arguments(call.get("arguments"))
        hub = hub_of(ctx)
        # Check before asking: the user should not approve a call that cannot work.
        hub.check_tool_call(server, tool, arguments)
        feedback = ""
        if not auto_approved(ctx, hub, server, tool):
            remember = ctx.services.remember_mcp_tool
            options: tuple[Option, ...] = (APPROVE, DENY)
            if remember is not None:
                always = Option(ALWAYS_ALLOW.id, f"Always allow {tool} ({server})")
                options = (APPROVE, always, DENY)
            approval = await ctx.approve(
                ApprovalQuestion(
                    self.spec.name,
                    f"Use tool '{tool}' of MCP server '{server}'",
                    preview=json.dumps(arguments, ensure_ascii=False, indent=2),
                    options=options,
                ),
                "mcp",
                outside_workspace=False,
            )
            if not approval.approved:
                return ToolResult(with_feedback(DENIED, approval.feedback), denied=True)
            feedback = approval.feedback
            if approval.always and remember is not None:
                _always_allow(ctx, remember, server, tool)
        from pycline.tools.mcp_elicit import elicitor_for
        from pycline.tools.mcp_sample import sampler_for

        output = await hub.call_tool(
            server,
            tool,
            arguments,
            elicitor=elicitor_for(ctx),
            sampler=sampler_for(ctx, self.spec.name),
            roots=(ctx.cwd,),
        )
        text, images = render(output, supports_images=ctx.supports_images)
        if output.is_error:
            return ToolResult(
                f"The MCP tool '{tool}' reported an error:\n{text or NO_CONTENT}",
                images=images,
                is_error=True,
                blameless=True,  # the server's own failure, not a wrong call by the model
            )
        return ToolResult(with_feedback(text or NO_CONTENT, feedback), images=images)


class AccessMcpResourceTool:
    spec = ACCESS_MCP_RESOURCE_SPEC

    def summary(self, call: ToolCall) -> str:
        server, uri = call.get("server_name"), call.get("uri")
        return describe(self.spec.name, f"{server} {uri}" if server and uri else server)

    async def run(self, call: ToolCall, ctx: ToolContext) -> ToolResult:
        server = call.require("server_name").strip()
        uri = call.require("uri").strip()
        hub = hub_of(ctx)
        hub.check_server(server)
        approval = await ctx.approve(
            ApprovalQuestion(
                self.spec.name, f"Read resource {uri} of MCP server '{server}'", preview=uri
            ),
            "mcp",
            outside_workspace=False,
        )
        if not approval.approved:
            return ToolResult(with_feedback(DENIED, approval.feedback), denied=True)
        output = await hub.read_resource(server, uri)
        text, images = render(output, supports_images=ctx.supports_images)
        return ToolResult(with_feedback(text or NO_CONTENT, approval.feedback), images=images)
