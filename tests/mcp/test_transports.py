"""The reference server over stdio, SSE and streamable HTTP, through the hub and the tools."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pycline.mcp.hub import McpHub
from pycline.mcp.model import TextPart
from pycline.tools.base import ToolCall
from pycline.tools.mcp_tools import AccessMcpResourceTool, UseMcpToolTool
from tests.mcp.conftest import everything_stdio, write_settings
from tests.mcp.helpers import RecordingApprover, tool_context

ARCHITECTURE = "demo://resource/static/document/architecture.md"


def _entry(transport: str, http_everything: Callable[[str], str]) -> dict[str, Any]:
    if transport == "stdio":
        return everything_stdio()
    entry: dict[str, Any] = {"url": http_everything(transport)}
    if transport == "streamableHttp":
        entry["type"] = "streamableHttp"  # a URL without a type means SSE
    return entry


@pytest.mark.parametrize("transport", ["stdio", "sse", "streamableHttp"])
async def test_echo_over_each_transport_via_hub_and_tool(
    transport: str,
    http_everything: Callable[[str], str],
    make_hub: Callable[..., McpHub],
    workspace: Path,
) -> None:
    write_settings({"everything": _entry(transport, http_everything)})
    hub = make_hub()
    await hub.start()
    state = hub.server("everything")
    assert state is not None and state.status == "connected", state
    assert state.transport == transport
    assert state.tool("echo") is not None and state.resources and state.templates

    output = await hub.call_tool("everything", "echo", {"message": f"via {transport}"})
    assert output.parts == (TextPart(f"Echo: via {transport}"),) and not output.is_error

    approver = RecordingApprover()
    call = ToolCall(
        "use_mcp_tool",
        {"server_name": "everything", "tool_name": "echo", "arguments": '{"message": "tool"}'},
    )
    result = await UseMcpToolTool().run(call, tool_context(workspace, hub, approver))
    assert result.text == "Echo: tool" and not result.is_error
    assert [(q.tool, category) for q, category in approver.asked] == [("use_mcp_tool", "mcp")]
    assert '"message": "tool"' in approver.asked[0][0].preview


@pytest.mark.parametrize("transport", ["stdio", "streamableHttp"])
async def test_resource_read_via_hub_and_tool(
    transport: str,
    http_everything: Callable[[str], str],
    make_hub: Callable[..., McpHub],
    workspace: Path,
) -> None:
    write_settings({"everything": _entry(transport, http_everything)})
    hub = make_hub()
    await hub.start()
    state = hub.server("everything")
    assert state is not None and any(r.uri == ARCHITECTURE for r in state.resources)

    output = await hub.read_resource("everything", ARCHITECTURE)
    assert isinstance(output.parts[0], TextPart) and "Architecture" in output.parts[0].text

    approver = RecordingApprover()
    call = ToolCall("access_mcp_resource", {"server_name": "everything", "uri": ARCHITECTURE})
    result = await AccessMcpResourceTool().run(call, tool_context(workspace, hub, approver))
    assert "Architecture" in result.text and not result.is_error
    assert approver.asked[0][1] == "mcp"


async def test_image_and_embedded_resource_content(
    make_hub: Callable[..., McpHub], workspace: Path
) -> None:
    write_settings({"everything": everything_stdio(autoApprove=["get-tiny-image"])})
    hub = make_hub()
    await hub.start()
    call = ToolCall(
        "use_mcp_tool",
        {"server_name": "everything", "tool_name": "get-tiny-image", "arguments": "{}"},
    )
    approver = RecordingApprover()
    seeing = await UseMcpToolTool().run(call, tool_context(workspace, hub, approver))
    assert [i.media_type for i in seeing.images] == ["image/png"]
    assert seeing.images[0].data_b64.startswith("iVBOR")
    blind = await UseMcpToolTool().run(
        call, tool_context(workspace, hub, approver, supports_images=False)
    )
    assert blind.images == () and "cannot view images" in blind.text

    embedded = await hub.call_tool(
        "everything", "get-resource-reference", {"resourceType": "Text", "resourceId": 2}
    )
    texts = [p.text for p in embedded.parts if isinstance(p, TextPart)]
    assert any("Resource 2" in t for t in texts), texts
