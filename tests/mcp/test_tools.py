"""use_mcp_tool / access_mcp_resource: approval, autoApprove, argument checks, results."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from pycline.errors import ToolError
from pycline.mcp.hub import McpHub
from pycline.tools.base import ToolCall
from pycline.tools.mcp_tools import AccessMcpResourceTool, UseMcpToolTool
from tests.mcp.conftest import py_server, write_settings
from tests.mcp.helpers import RecordingApprover, tool_context


def _use(tool: str, arguments: str, server: str = "n") -> ToolCall:
    return ToolCall(
        "use_mcp_tool", {"server_name": server, "tool_name": tool, "arguments": arguments}
    )


# One server for the whole module (these tests only call it), on one event loop.
pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def hub(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[McpHub]:
    path = tmp_path_factory.mktemp("mcp-settings") / "cline_mcp_settings.json"
    write_settings({"n": py_server("normal", autoApprove=["add"])}, path)
    built = McpHub(settings_path=path, watch_interval=None)
    await built.start()
    yield built
    await built.close()


async def test_auto_approved_tool_runs_without_asking(hub: McpHub, workspace: Path) -> None:
    approver = RecordingApprover(approve=False)  # would deny, were it asked
    result = await UseMcpToolTool().run(
        _use("add", '{"a": 2, "b": 3}'), tool_context(workspace, hub, approver)
    )
    assert result.text == "5" and approver.asked == []


async def test_other_tools_ask_and_a_denial_stops_the_call(hub: McpHub, workspace: Path) -> None:
    approver = RecordingApprover(approve=False, feedback="not now")
    result = await UseMcpToolTool().run(
        _use("shout", '{"text": "hi"}'), tool_context(workspace, hub, approver)
    )
    assert result.denied and "denied" in result.text and "not now" in result.text
    question, category = approver.asked[0]
    assert category == "mcp" and "'shout'" in question.summary and "'n'" in question.summary

    approver = RecordingApprover(feedback="go ahead")
    result = await UseMcpToolTool().run(
        _use("shout", '{"text": "hi"}'), tool_context(workspace, hub, approver)
    )
    assert result.text.startswith("HI") and "go ahead" in result.text


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (_use("add", '{"a": "two", "b": 3}'), r"a: 'two' is not of type 'integer'"),
        (_use("add", '{"a": 1}'), r"'b' is a required property"),
        (_use("add", "{nope"), r"arguments must be a JSON object: Expecting property name"),
        (_use("add", "[1, 2]"), r"arguments must be a JSON object, not list"),
        (_use("nope", "{}"), r"no tool named 'nope'\. Its tools: add, pid, shout"),
        (_use("add", "{}", server="ghost"), r"No MCP server named 'ghost'\. Configured servers: n"),
        (ToolCall("use_mcp_tool", {"server_name": "n"}), r"'tool_name'"),
    ],
)
async def test_bad_calls_are_explained_before_anyone_is_asked(
    hub: McpHub, workspace: Path, call: ToolCall, message: str
) -> None:
    approver = RecordingApprover()
    with pytest.raises(ToolError, match=message):
        await UseMcpToolTool().run(call, tool_context(workspace, hub, approver))
    assert approver.asked == []


async def test_validation_error_shows_the_expected_schema(hub: McpHub, workspace: Path) -> None:
    with pytest.raises(ToolError) as info:
        await UseMcpToolTool().run(
            _use("add", '{"a": 1.5, "b": 2, "c": 3}'),
            tool_context(workspace, hub, RecordingApprover()),
        )
    text = str(info.value)
    assert "Invalid arguments for MCP tool 'add'" in text
    assert "1.5 is not of type 'integer'" in text and '"required": ["a", "b"]' in text


async def test_tool_error_result_is_reported_as_an_error(hub: McpHub, workspace: Path) -> None:
    result = await UseMcpToolTool().run(
        _use("fail", '{"reason": "disk full"}'), tool_context(workspace, hub, RecordingApprover())
    )
    assert result.is_error and "reported an error" in result.text and "disk full" in result.text


async def test_images_are_attached_for_vision_models_only(hub: McpHub, workspace: Path) -> None:
    seeing = await UseMcpToolTool().run(
        _use("picture", ""), tool_context(workspace, hub, RecordingApprover())
    )
    assert seeing.text.startswith("a pixel") and len(seeing.images) == 1
    assert seeing.images[0].media_type == "image/png"
    blind = await UseMcpToolTool().run(
        _use("picture", ""),
        tool_context(workspace, hub, RecordingApprover(), supports_images=False),
    )
    assert blind.images == () and "a pixel" in blind.text and "cannot view images" in blind.text


async def test_resource_tool_reads_listed_and_templated_uris(hub: McpHub, workspace: Path) -> None:
    tool = AccessMcpResourceTool()
    ctx = tool_context(workspace, hub, RecordingApprover())
    hello = await tool.run(
        ToolCall("access_mcp_resource", {"server_name": "n", "uri": "note://hello"}), ctx
    )
    assert hello.text == "Hello from the note resource."
    item = await tool.run(
        ToolCall("access_mcp_resource", {"server_name": "n", "uri": "note://items/pen"}), ctx
    )
    assert item.text == "item pen"
    with pytest.raises(ToolError, match="returned an error for resource 'note://missing'"):
        await tool.run(
            ToolCall("access_mcp_resource", {"server_name": "n", "uri": "note://missing"}), ctx
        )


async def test_denied_resource_read_is_not_performed(hub: McpHub, workspace: Path) -> None:
    approver = RecordingApprover(approve=False)
    result = await AccessMcpResourceTool().run(
        ToolCall("access_mcp_resource", {"server_name": "n", "uri": "note://hello"}),
        tool_context(workspace, hub, approver),
    )
    assert result.denied and approver.asked[0][0].tool == "access_mcp_resource"


async def test_without_a_hub_the_tools_say_so(workspace: Path) -> None:
    with pytest.raises(ToolError, match="not available"):
        await UseMcpToolTool().run(
            _use("add", "{}"), tool_context(workspace, None, RecordingApprover())
        )
