"""Which tools the model is offered, and how: native requests carry no XML tool docs, and a
command's own tool (new_task, condense, new_rule) is offered only once the user types it."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from pycline.app.builders import wiring
from pycline.app.builders.builder import TaskBuilder
from pycline.app.settings.config import ModelConfig
from pycline.core.approval import AutoApprove
from pycline.core.commands import expand
from pycline.core.task import TaskSettings
from pycline.messages import Message, TextContent
from pycline.providers.scripted import ScriptedProvider
from pycline.storage.records import TaskRecord
from pycline.storage.task_store import TaskStore
from tests.core.harness import RecordingHost, complete, make_task

_COMMAND_TOOLS = {"new_task", "condense", "new_rule"}


def _first_text(messages: Sequence[Message]) -> str:
    return "".join(c.text for c in messages[0].content if isinstance(c, TextContent))


def test_the_native_system_prompt_carries_no_xml_tool_docs(workspace: Path) -> None:
    tools = wiring.default_tools(browser=False)
    native = wiring.system_prompt(tools, workspace, native=True)
    xml = wiring.system_prompt(tools, workspace)
    assert "## read_file" in xml and "<read_file>" in xml and "<tool_name>" in xml
    assert "## read_file" not in native and "<read_file>" not in native
    assert "<tool_name>" not in native and "<thinking>" not in native


def test_the_xml_prompt_leaves_out_the_tools_only_a_command_calls_for(workspace: Path) -> None:
    xml = wiring.system_prompt(wiring.default_tools(browser=False), workspace)
    for name in _COMMAND_TOOLS:
        assert f"## {name}" not in xml
    assert "## attempt_completion" in xml


def test_the_browser_is_not_offered_without_a_browser() -> None:
    names = {t.spec.name for t in wiring.default_tools(browser=False)}
    assert "browser_action" not in names and "read_file" in names


async def test_native_requests_offer_a_command_tool_only_after_its_command(
    isolated_home: Path, workspace: Path
) -> None:
    native = TaskSettings(auto_approve=AutoApprove(), tool_call_format="native")
    plain, plain_provider = make_task(
        isolated_home, workspace, [complete()], RecordingHost(), settings=native
    )
    assert (await plain.start("fix the bug")).completed
    offered = {t.name for t in plain_provider.requests[0].tools}
    assert "attempt_completion" in offered and not offered & _COMMAND_TOOLS

    smol, smol_provider = make_task(
        isolated_home, workspace, [complete()], RecordingHost(), settings=native
    )
    assert (await smol.start("/smol")).completed
    offered = {t.name for t in smol_provider.requests[0].tools}
    assert "condense" in offered and not offered & {"new_task", "new_rule"}
    # The definition describes it: no XML docs in the message.
    assert "## condense" not in _first_text(smol_provider.requests[0].messages)


async def test_with_xml_calls_the_command_brings_its_tool_docs(
    isolated_home: Path, workspace: Path
) -> None:
    xml = TaskSettings(auto_approve=AutoApprove(), tool_call_format="xml")
    task, provider = make_task(
        isolated_home, workspace, [complete()], RecordingHost(), settings=xml
    )
    assert (await task.start("/newrule about testing")).completed
    request = provider.requests[0]
    assert "## new_rule" not in request.system
    text = _first_text(request.messages)
    assert "## new_rule" in text and "<new_rule>" in text and "about testing" in text
    assert not request.tools


async def test_after_a_restart_a_command_asked_for_earlier_keeps_its_tool_offered(
    isolated_home: Path, workspace: Path
) -> None:
    folder = TaskStore(isolated_home).create()
    record = TaskRecord(id=folder.id, ts=0.0, task="plain", workspace=str(workspace.resolve()))
    folder.save_record(record)
    expanded = expand("/newtask please", [])
    folder.save_api_history(
        [
            Message.user("<task>\nplain\n</task>"),
            Message.assistant("Sure."),
            Message.user(expanded.text),
            Message.assistant("I will hand over."),
        ]
    )
    provider = ScriptedProvider.of(complete())
    builder = TaskBuilder(isolated_home, ModelConfig(provider="scripted"))
    native = TaskSettings(auto_approve=AutoApprove(), tool_call_format="native")
    _, run = builder.resume_task(folder.id, RecordingHost(), workspace, native, provider=provider)
    assert (await run()).completed
    offered = {t.name for t in provider.requests[0].tools}
    assert "new_task" in offered and not offered & {"condense", "new_rule"}
