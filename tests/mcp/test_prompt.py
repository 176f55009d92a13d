"""The system-prompt section, result rendering and tool summaries (no servers needed)."""

from __future__ import annotations

from pycline.mcp.model import (
    BinaryPart,
    ImagePart,
    McpOutput,
    McpResource,
    McpResourceTemplate,
    McpTool,
    ServerState,
    TextPart,
)
from pycline.mcp.prompt import compact_schema, mcp_prompt_section
from pycline.mcp.schema import validation_problems
from pycline.tools.base import ToolCall
from pycline.tools.mcp_tools import AccessMcpResourceTool, UseMcpToolTool, render

SCHEMA = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "title": "searchArguments",
    "type": "object",
    "properties": {
        "title": {"title": "Title", "type": "string"},
        "tags": {"type": "array", "items": {"title": "Tag", "type": "string"}},
        "mode": {"default": {"title": "kept"}, "enum": ["a", "b"]},
    },
    "required": ["title"],
}


def _server(name: str, status: str = "connected") -> ServerState:
    return ServerState(
        name,
        "stdio",
        "global",
        status,  # type: ignore[arg-type]
        tools=(McpTool("search", "Find\n  notes by title.", SCHEMA),),
        resources=(McpResource("notes://index", "index", "All notes"),),
        templates=(McpResourceTemplate("notes://{id}", "note", "One note"),),
        instructions="Use search before reading.",
    )


def test_section_lists_connected_servers_with_tools_templates_and_resources() -> None:
    text = mcp_prompt_section([_server("notes"), _server("down", "error")])
    assert text.startswith("MCP SERVERS")
    assert "## notes" in text and "## down" not in text
    assert "Use search before reading." in text
    assert "- search: Find notes by title.\n  Input schema: {" in text
    assert "- notes://{id} (note): One note" in text
    assert "- notes://index (index): All notes" in text
    assert "$schema" not in text and "searchArguments" not in text


def test_no_connected_server_means_no_section() -> None:
    assert mcp_prompt_section([_server("x", "disabled")]) == ""


def test_compact_schema_drops_noise_but_keeps_properties_named_title() -> None:
    assert compact_schema(SCHEMA) == {
        "type": "object",
        "properties": {
            "title": {"type": "string"},
            "tags": {"type": "array", "items": {"type": "string"}},
            "mode": {"default": {"title": "kept"}, "enum": ["a", "b"]},
        },
        "required": ["title"],
    }


def test_validation_reports_paths_and_tolerates_broken_schemas() -> None:
    problems = validation_problems({"tags": ["x", 3], "mode": "c"}, SCHEMA)
    assert problems == [
        "'title' is a required property",
        "mode: 'c' is not one of ['a', 'b']",
        "tags[1]: 3 is not of type 'string'",
    ]
    assert validation_problems({"a": 1}, {"type": "no-such-type"}) == []


def test_render_joins_text_and_describes_what_cannot_be_shown() -> None:
    output = McpOutput(
        (
            TextPart("first"),
            ImagePart("image/png", "AAAA"),
            BinaryPart("[audio (audio/wav, 4 bytes) not shown]"),
            TextPart("last"),
        )
    )
    text, images = render(output, supports_images=True)
    assert text == (
        "first\n\n[audio (audio/wav, 4 bytes) not shown]\n\nlast\n\n"
        "[The result includes an image, attached.]"
    )
    assert [i.media_type for i in images] == ["image/png"]
    text, images = render(output, supports_images=False)
    assert images == () and "image (image/png) was returned" in text


def test_summaries_name_server_tool_and_uri() -> None:
    call = ToolCall("use_mcp_tool", {"server_name": "n", "tool_name": "add", "arguments": "{}"})
    assert UseMcpToolTool().summary(call) == "use_mcp_tool for 'n/add'"
    call = ToolCall("access_mcp_resource", {"server_name": "n", "uri": "note://hello"})
    assert AccessMcpResourceTool().summary(call) == "access_mcp_resource for 'n note://hello'"
