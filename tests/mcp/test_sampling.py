"""A server's request for a completion (sampling) is made by the task's own model once the user
approves it, charged to the task; declined, or outside a task's call, the server is told why.

The server (tests/mcp/servers/sampling.py) runs for real, over stdio with the `mcp` SDK.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from pycline.app.builders import wiring
from pycline.core.approval import AutoApprove
from pycline.core.task import TaskSettings
from pycline.events import Answer, ApprovalQuestion, Usage
from pycline.mcp.hub import McpHub
from pycline.mcp.model import TextPart
from pycline.providers.base import ModelInfo
from pycline.providers.scripted import ScriptedProvider
from pycline.testing import RecordingHost, task_for
from pycline.tools.mcp_tools import UseMcpToolTool
from tests.core.harness import complete
from tests.mcp.conftest import everything_stdio, py_server, write_settings

CALL = (
    "<use_mcp_tool>\n<server_name>sampling</server_name>\n<tool_name>haiku</tool_name>\n"
    '<arguments>{"topic": "tests"}</arguments>\n</use_mcp_tool>'
)
POEM = "Green bars line the screen"


async def test_the_tasks_model_answers_once_the_user_approves_and_the_task_pays(
    isolated_home: Path, workspace: Path, make_hub: Callable[..., McpHub]
) -> None:
    write_settings({"sampling": py_server("sampling")})
    hub = make_hub()
    await hub.start()
    services = wiring.task_services(workspace)
    services.tools.mcp_hub = hub
    # The task's turns and the server's completion come from the same model, in order.
    provider = ScriptedProvider.of(CALL, POEM, CALL, complete())
    provider.model_info = ModelInfo("m", input_price=1.0, output_price=1.0)
    yes, no = Answer("approve"), Answer("deny")
    host = RecordingHost(answers=[yes, yes, yes, no])
    task = task_for(
        isolated_home, workspace, provider, host, tools=[*wiring.default_tools(), UseMcpToolTool()],
        task_text="haiku", settings=TaskSettings(auto_approve=AutoApprove()), services=services,
    )  # fmt: skip
    assert (await task.start("haiku")).completed
    asked = [q for q in host.questions if isinstance(q, ApprovalQuestion)]
    sampling = [q for q in asked if "asks your model for a completion" in q.summary]
    assert len(sampling) == 2 and "user: A haiku about tests." in sampling[0].preview
    assert "system: Answer with the poem only." in sampling[0].preview
    # What the server sent is what the model got; what it wrote went back to the server.
    sampled = provider.requests[1]
    assert sampled.system == "Answer with the poem only."
    assert [m.text for m in sampled.messages] == ["A haiku about tests."]
    assert f"haiku by m: {POEM}" in provider.requests[2].messages[-1].text
    # Declined: the server is told, and says so in its result.
    assert (
        "no haiku: Sampling refused: the user declined." in provider.requests[3].messages[-1].text
    )
    # Four model requests, each charged to the task: the completion is one of them.
    charged = [e for e in host.events if isinstance(e, Usage)]
    assert len(provider.requests) == 4 and len(charged) == 4
    assert task.record.total_cost == sum(e.cost for e in charged[:4]) > 0


async def test_outside_a_tasks_call_sampling_is_refused_with_the_reason(
    isolated_home: Path, make_hub: Callable[..., McpHub]
) -> None:
    write_settings({"sampling": py_server("sampling")})
    hub = make_hub()
    await hub.start()
    output = await hub.call_tool("sampling", "haiku", {"topic": "tests"})
    (part,) = output.parts
    assert isinstance(part, TextPart)
    assert part.text.startswith("no haiku: Sampling refused: pycline samples only while")


async def test_the_servers_roots_are_the_calling_tasks_folder(
    workspace: Path, tmp_path: Path, make_hub: Callable[..., McpHub]
) -> None:
    write_settings({"sampling": py_server("sampling")})
    hub = make_hub()
    await hub.start()
    first = await hub.call_tool("sampling", "where", {}, roots=(workspace,))
    assert first.parts == (TextPart(workspace.resolve().as_uri()),)
    # A task working in another worktree of the project: the server is told, and sees it.
    other = tmp_path / "worktree"
    other.mkdir()
    moved = await hub.call_tool("sampling", "where", {}, roots=(other,))
    assert moved.parts == (TextPart(other.resolve().as_uri()),)


async def test_the_reference_servers_sampling_tool_gets_the_tasks_model(
    isolated_home: Path, workspace: Path, make_hub: Callable[..., McpHub]
) -> None:
    # npm's @modelcontextprotocol/server-everything offers its sampling tool only to a client
    # that declares sampling, and sends the model's reply back as the tool's result.
    write_settings({"everything": everything_stdio()})
    hub = make_hub()
    await hub.start()
    services = wiring.task_services(workspace)
    services.tools.mcp_hub = hub
    call = (
        "<use_mcp_tool>\n<server_name>everything</server_name>\n"
        "<tool_name>trigger-sampling-request</tool_name>\n"
        '<arguments>{"prompt": "name a colour"}</arguments>\n</use_mcp_tool>'
    )
    provider = ScriptedProvider.of(call, "Teal.", complete())
    host = RecordingHost(answers=[Answer("approve"), Answer("approve")])
    task = task_for(
        isolated_home, workspace, provider, host, tools=[*wiring.default_tools(), UseMcpToolTool()],
        task_text="colour", settings=TaskSettings(auto_approve=AutoApprove()), services=services,
    )  # fmt: skip
    assert (await task.start("colour")).completed
    assert provider.requests[1].system == "You are a helpful test server."
    assert "name a colour" in provider.requests[1].messages[0].text
    result = provider.requests[2].messages[-1].text
    assert "LLM sampling result" in result and "Teal." in result
