"""Convert the SDK's result objects into our `McpOutput` (called only where `mcp` is loaded)."""

from __future__ import annotations

import base64
import binascii
import json
from typing import TYPE_CHECKING, Any

from pycline.mcp.model import (
    BinaryPart,
    ImagePart,
    McpOutput,
    McpPart,
    McpResource,
    McpResourceTemplate,
    McpTool,
    TextPart,
)

if TYPE_CHECKING:
    import mcp_types


def _size_of(data_b64: str) -> str:
    try:
        return f"{len(base64.b64decode(data_b64, validate=False)):,} bytes"
    except (binascii.Error, ValueError):
        return "unknown size"


def _resource_part(res: mcp_types.TextResourceContents | mcp_types.BlobResourceContents) -> McpPart:
    import mcp_types

    if isinstance(res, mcp_types.TextResourceContents):
        return TextPart(res.text)
    mime = res.mime_type or "application/octet-stream"
    if mime.startswith("image/"):
        return ImagePart(mime, res.blob)
    return BinaryPart(f"[binary resource {res.uri} ({mime}, {_size_of(res.blob)}) not shown]")


def _content_part(block: Any) -> McpPart:
    import mcp_types

    match block:
        case mcp_types.TextContent():
            return TextPart(block.text)
        case mcp_types.ImageContent():
            return ImagePart(block.mime_type, block.data)
        case mcp_types.AudioContent():
            return BinaryPart(f"[audio ({block.mime_type}, {_size_of(block.data)}) not shown]")
        case mcp_types.EmbeddedResource():
            return _resource_part(block.resource)
        case mcp_types.ResourceLink():
            label = f" ({block.description})" if block.description else ""
            return TextPart(f"Resource link: {block.uri} — {block.name}{label}")
        case _:
            return BinaryPart(f"[unsupported content of type {getattr(block, 'type', '?')}]")


def tool_output(result: mcp_types.CallToolResult) -> McpOutput:
    parts = [_content_part(block) for block in result.content]
    if not parts and result.structured_content is not None:
        # A tool may answer only with structured content; the model reads it as JSON.
        parts.append(TextPart(json.dumps(result.structured_content, ensure_ascii=False)))
    return McpOutput(tuple(parts), is_error=result.is_error)


def resource_output(result: mcp_types.ReadResourceResult) -> McpOutput:
    return McpOutput(tuple(_resource_part(c) for c in result.contents))


def tool_of(tool: mcp_types.Tool) -> McpTool:
    return McpTool(tool.name, tool.description or "", dict(tool.input_schema))


def resource_of(res: mcp_types.Resource) -> McpResource:
    return McpResource(res.uri, res.name, res.description or "", res.mime_type or "")


def template_of(tpl: mcp_types.ResourceTemplate) -> McpResourceTemplate:
    return McpResourceTemplate(
        tpl.uri_template, tpl.name, tpl.description or "", tpl.mime_type or ""
    )
