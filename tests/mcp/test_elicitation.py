"""A server's request for input (elicitation) is asked of the user, or declined headless.

The server (tests/mcp/servers/asking.py) runs for real; the user is the task's host, answering
the follow-up question every front end shows (terminal prompt, web page, editor message).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from pycline.app.builders import wiring
from pycline.core.approval import AutoApprove
from pycline.core.task import TaskSettings
from pycline.events import Answer, FollowupQuestion
from pycline.mcp.hub import McpHub
from pycline.mcp.model import TextPart
from pycline.providers.scripted import ScriptedProvider
from pycline.testing import RecordingHost, task_for
from pycline.tools.mcp_elicit import DECLINE, parse_reply
from pycline.tools.mcp_tools import UseMcpToolTool
from tests.core.harness import complete
from tests.mcp.conftest import py_server, write_settings


def _call(tool: str) -> str:
    return (
        f"<use_mcp_tool>\n<server_name>asking</server_name>\n<tool_name>{tool}</tool_name>\n"
        "<arguments>{}</arguments>\n</use_mcp_tool>"
    )


async def _instant(_: float) -> None:
    return None


async def test_the_user_fills_in_the_form_or_declines_it(
    isolated_home: Path, workspace: Path, make_hub: Callable[..., McpHub]
) -> None:
    write_settings({"asking": py_server("asking")})
    hub = make_hub()
    await hub.start()
    tools = [*wiring.default_tools(), UseMcpToolTool()]
    services = wiring.task_services(workspace)
    services.tools.mcp_hub = hub
    provider = ScriptedProvider.of(_call("order"), _call("order"), _call("confirm"), complete())
    yes = Answer("approve")
    host = RecordingHost(
        answers=[
            yes,
            Answer(text="flavour: vanilla\nscoops: lots"),  # does not fit: asked again
            Answer(text="flavour: vanilla\nscoops: 3"),
            yes,
            Answer(DECLINE.id),
            yes,
            Answer("cancel"),
        ]
    )
    task = task_for(
        isolated_home, workspace, provider, host, tools=tools, task_text="order",
        settings=TaskSettings(auto_approve=AutoApprove(), max_retries=3),
        services=services, sleep=_instant,
    )  # fmt: skip
    assert (await task.start("order")).completed
    forms = [q for q in host.questions if isinstance(q, FollowupQuestion)]
    assert "The MCP server 'asking' asks: Which ice cream would you like?" in forms[0].question
    assert "- flavour (string, required)" in forms[0].question
    assert "did not fit: scoops: expected integer" in forms[1].question
    assert "http://127.0.0.1:9/confirm" in forms[3].question
    results = [m.text for m in provider.requests[1].messages[-1:]]
    assert "accepted: 3 x vanilla" in results[0]
    assert "decline" in provider.requests[2].messages[-1].text
    assert "cancel" in provider.requests[3].messages[-1].text


async def test_a_headless_call_declines(
    isolated_home: Path, make_hub: Callable[..., McpHub]
) -> None:
    write_settings({"asking": py_server("asking")})
    hub = make_hub()
    await hub.start()
    output = await hub.call_tool("asking", "order", {})
    assert output.parts == (TextPart("decline"),)


def test_replies_are_checked_against_the_schema() -> None:
    schema = {
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "ok": {"type": "boolean", "default": True},
            "size": {"type": "string", "enum": ["s", "m"]},
        },
        "required": ["name"],
    }
    assert parse_reply(schema, "name: Ada\nsize: m") == {"name": "Ada", "ok": True, "size": "m"}
    assert parse_reply(schema, '{"name": "Bo", "ok": "no"}') == {"name": "Bo", "ok": False}
    for bad in ("size: xl\nname: a", "ok: yes", "colour: red\nname: a"):
        try:
            parse_reply(schema, bad)
        except ValueError:
            continue
        raise AssertionError(bad)
