"""End to end: a scripted model calls an MCP tool through the real task loop."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from pycline.app.builders import wiring
from pycline.core.approval import AutoApprove
from pycline.core.task import TaskSettings
from pycline.mcp.hub import McpHub
from pycline.mcp.prompt import mcp_prompt_section
from pycline.providers.scripted import ScriptedProvider
from pycline.testing import task_for
from pycline.tools.mcp_tools import AccessMcpResourceTool, UseMcpToolTool
from pycline.workspace.paths import Workspace
from tests.core.harness import RecordingHost, complete
from tests.mcp.conftest import everything_stdio, write_settings

CALL = """I will echo.
<use_mcp_tool>
<server_name>everything</server_name>
<tool_name>echo</tool_name>
<arguments>
{"message": "from the loop"}
</arguments>
</use_mcp_tool>"""


async def _instant(_: float) -> None:
    return None


async def test_scripted_model_uses_an_mcp_tool(
    isolated_home: Path, workspace: Path, make_hub: Callable[..., McpHub]
) -> None:
    write_settings({"everything": everything_stdio()})
    hub = make_hub()
    await hub.start()
    tools = [*wiring.default_tools(), UseMcpToolTool(), AccessMcpResourceTool()]
    ws = Workspace.at(workspace)
    services = wiring.task_services(ws.root)
    services.tools.mcp_hub = hub
    provider = ScriptedProvider.of(CALL, complete(), chunk_size=7)
    host = RecordingHost()
    task = task_for(
        isolated_home,
        workspace,
        provider,
        host,
        tools=tools,
        system_prompt=wiring.system_prompt(tools, ws.root)
        + "\n\n"
        + mcp_prompt_section(hub.servers()),
        task_text="echo",
        settings=TaskSettings(auto_approve=AutoApprove(), max_retries=3),
        services=services,
        sleep=_instant,
    )
    assert (await task.start("echo")).completed
    assert "## everything" in provider.requests[0].system
    result = provider.requests[1].messages[-1].text
    assert result.startswith("[use_mcp_tool for 'everything/echo'] Result:\nEcho: from the loop")
    # An MCP tool asks first, as in Cline (the host here says yes).
    assert [q.kind for q in host.questions] == ["approval", "completion"]


async def test_always_allow_runs_the_tool_unasked_from_then_on_and_is_remembered(
    isolated_home: Path, workspace: Path, make_hub: Callable[..., McpHub]
) -> None:
    from pycline.events import ALWAYS_ALLOW, Answer

    write_settings({"everything": everything_stdio()})
    hub = make_hub()
    await hub.start()
    tools = [*wiring.default_tools(), UseMcpToolTool(), AccessMcpResourceTool()]
    ws = Workspace.at(workspace)
    services = wiring.task_services(ws.root)
    services.tools.mcp_hub = hub
    remembered: list[tuple[str, str]] = []
    services.tools.remember_mcp_tool = lambda server, tool: remembered.append((server, tool))
    provider = ScriptedProvider.of(CALL, CALL, complete(), chunk_size=7)
    host = RecordingHost(answers=[Answer(ALWAYS_ALLOW.id)])
    task = task_for(
        isolated_home,
        workspace,
        provider,
        host,
        tools=tools,
        system_prompt=wiring.system_prompt(tools, ws.root),
        task_text="echo",
        settings=TaskSettings(auto_approve=AutoApprove(), max_retries=3),
        services=services,
        sleep=_instant,
    )
    assert (await task.start("echo")).completed
    approval = host.questions[0]
    assert "Always allow echo (everything)" in [o.label for o in approval.options]  # type: ignore[attr-defined]
    assert [q.kind for q in host.questions] == ["approval", "completion"]  # the 2nd call: unasked
    assert remembered == [("everything", "echo")]
