"""Task behaviour from settings: approval (SPEC §7), limits, per-MCP-tool auto-approval."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pycline.app.builders.builder import TaskBuilder
from pycline.app.settings.config import ModelConfig, settings_path
from pycline.app.settings.settings_model import validate
from pycline.app.settings.task_settings import (
    DiagnosticsSettings,
    ToolSettings,
    diagnostics_settings,
    task_settings,
    tool_settings,
    workspace_tool_settings,
)
from pycline.core.approval import ApprovalPolicy, AutoApprove
from pycline.core.options import mistake_limit
from pycline.errors import ConfigError
from pycline.events import DENY, Answer, ApprovalQuestion, Question
from pycline.providers.scripted import ScriptedProvider
from pycline.tools.base import ApprovalCategory
from tests.core.harness import RecordingHost, complete
from tests.mcp.conftest import py_server, write_settings


def _write(path: Path, data: dict[str, object]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data), encoding="utf-8")


def test_task_settings_come_from_global_then_workspace(
    isolated_home: Path, workspace: Path
) -> None:
    _write(
        settings_path(isolated_home),
        {
            "autoApprove": {"editFiles": True, "executeAllCommands": True},
            "maxConsecutiveMistakes": 6,
            "maxRetries": 5,
            "retryBaseDelay": 0.5,
            "commandTimeout": 90,
        },
    )
    _write(
        workspace / ".pycline" / "settings.json",
        {"autoApprove": {"executeAllCommands": False}, "maxRetries": 1},
    )
    settings = task_settings(isolated_home, headless=True, approve_all_inside=True, mode="plan")
    assert settings.auto_approve == AutoApprove(edit_files=True, execute_all_commands=True)
    assert (settings.max_mistakes, settings.max_retries) == (6, 5)
    assert (settings.retry_base_delay, settings.command_timeout) == (0.5, 90.0)
    assert settings.headless and settings.approve_all_inside and settings.mode == "plan"
    local = task_settings(isolated_home, headless=False, workspace=workspace)
    assert local.auto_approve == AutoApprove(edit_files=True) and local.max_retries == 1


def test_no_settings_file_gives_clines_defaults(isolated_home: Path, workspace: Path) -> None:
    settings = task_settings(isolated_home, headless=False, workspace=workspace)
    assert settings.auto_approve == AutoApprove()
    assert (settings.max_retries, settings.command_timeout) == (3, 600)
    # Cline's 3 mistakes in a row, or 6 for a model on this machine; a setting holds for both.
    assert settings.max_mistakes is None
    assert (mistake_limit(None, False), mistake_limit(None, True), mistake_limit(4, True)) == (
        3,
        6,
        4,
    )


@pytest.mark.parametrize(
    ("policy", "category", "outside", "allowed"),
    [
        (AutoApprove(), "read", False, True),
        (AutoApprove(), "read", True, False),
        (AutoApprove(read_files_externally=True), "read", True, True),
        (AutoApprove(read_files=False, read_files_externally=True), "read", True, False),
        (AutoApprove(), "edit", False, False),
        (AutoApprove(edit_files=True), "edit", False, True),
        (AutoApprove(edit_files=True), "edit", True, False),
        (AutoApprove(edit_files=True, edit_files_externally=True), "edit", True, True),
        (AutoApprove(), "safe_command", False, True),
        (AutoApprove(execute_safe_commands=False), "safe_command", False, False),
        (AutoApprove(), "command", False, False),
        (AutoApprove(execute_all_commands=True), "command", False, True),
        (AutoApprove(), "browser", False, False),
        (AutoApprove(use_browser=True), "browser", False, True),
        (AutoApprove(), "mcp", False, False),
        (AutoApprove(use_mcp=True), "mcp", False, True),
        (AutoApprove(read_files=False, yolo=True), "edit", True, True),
        (AutoApprove(yolo=True), "command", True, True),
    ],
)
def test_auto_approval_follows_spec_section_7(
    policy: AutoApprove, category: ApprovalCategory, outside: bool, allowed: bool
) -> None:
    assert policy.allows(category, outside_workspace=outside) is allowed


async def test_yes_approves_inside_the_workspace_but_asks_outside() -> None:
    asked: list[Question] = []

    async def ask(question: Question) -> Answer:
        asked.append(question)
        return Answer(DENY.id)

    policy = ApprovalPolicy(AutoApprove(), ask, approve_all_inside=True)
    question = ApprovalQuestion("write_to_file", "Edit a.py")
    assert (await policy(question, "edit", outside_workspace=False)).approved
    assert not (await policy(question, "edit", outside_workspace=True)).approved
    assert len(asked) == 1 and asked[0].outside_workspace  # type: ignore[attr-defined]


def test_tool_settings_carry_mcp_lists_and_linters() -> None:
    settings = validate(
        {
            "mcpAutoApprove": {"github": ["list_issues", "get_issue"]},
            "linters": {"*.py": ["ruff", "check", "{file}"]},
        },
        source="s.json",
    )
    assert tool_settings(settings) == ToolSettings(
        mcp_auto_approve={"github": frozenset({"list_issues", "get_issue"})},
        linters={"*.py": ("ruff", "check", "{file}")},
    )


def test_workspace_tool_settings_read_the_global_lists(
    isolated_home: Path, workspace: Path
) -> None:
    _write(settings_path(isolated_home), {"mcpAutoApprove": {"s": ["t"]}})
    settings = workspace_tool_settings(isolated_home, workspace)
    assert settings.mcp_auto_approve == {"s": frozenset({"t"})}
    assert settings.sandbox is not None and settings.sandbox.workspace == workspace


def test_language_servers_and_their_budget_come_from_the_global_settings(
    isolated_home: Path, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("PYCLINE_LANGUAGE_SERVERS")
    assert diagnostics_settings(isolated_home, workspace) == DiagnosticsSettings(
        {}, 1.2, isolated_home
    )
    _write(
        settings_path(isolated_home),
        {
            "languageServers": {"python": ["pyright-langserver", "--stdio"], "go": []},
            "diagnosticsTimeout": 2.5,
            "installLanguageServers": False,
        },
    )
    found = diagnostics_settings(isolated_home, workspace)
    assert found.commands == {"python": ("pyright-langserver", "--stdio"), "go": ()}
    assert found.timeout == 2.5
    assert found.install_home is None  # nothing is installed into the data folder
    monkeypatch.setenv("PYCLINE_LANGUAGE_SERVERS", "off")
    commands = diagnostics_settings(isolated_home, workspace).commands
    assert set(commands) == {"python", "typescript", "go", "rust"}
    assert not any(commands.values())


def test_a_project_cannot_switch_installing_language_servers(
    isolated_home: Path, workspace: Path
) -> None:
    _write(workspace / ".pycline" / "settings.json", {"installLanguageServers": True})
    with pytest.raises(ConfigError, match="installLanguageServers"):
        diagnostics_settings(isolated_home, workspace)


def _mcp_call(tool: str, arguments: str) -> str:
    return (
        f"<use_mcp_tool>\n<server_name>n</server_name>\n<tool_name>{tool}</tool_name>\n"
        f"<arguments>\n{arguments}\n</arguments>\n</use_mcp_tool>"
    )


async def test_mcp_tools_listed_in_settings_run_without_asking(
    isolated_home: Path, workspace: Path
) -> None:
    write_settings({"n": py_server("normal")})  # the server itself auto-approves nothing
    _write(
        settings_path(isolated_home),
        {"autoApprove": {"useMcp": False}, "mcpAutoApprove": {"n": ["add"]}},
    )
    builder = TaskBuilder(isolated_home, ModelConfig(provider="scripted"))
    await builder.start_mcp(workspace)
    try:
        provider = ScriptedProvider.of(
            _mcp_call("add", '{"a": 2, "b": 3}'), _mcp_call("shout", '{"text": "hi"}'), complete()
        )
        host = RecordingHost()
        settings = task_settings(isolated_home, headless=False, workspace=workspace)
        task = builder.new_task("add", host, workspace, settings, provider=provider)
        assert (await task.start("add")).completed
    finally:
        await builder.close()
    approvals = [q for q in host.questions if isinstance(q, ApprovalQuestion)]
    assert [q.summary for q in approvals] == ["Use tool 'shout' of MCP server 'n'"]
    assert "Result:\n5" in provider.requests[1].messages[-1].text


async def test_task_services_carry_the_language_servers_and_close_them(workspace: Path) -> None:
    from pycline.app.builders.wiring import task_services
    from pycline.workspace.diagnostics.registry import LanguageServers

    services = task_services(
        workspace, diagnostics=DiagnosticsSettings({"python": ()}, 1.5, install_home=None)
    )
    servers = services.tools.language_servers
    assert isinstance(servers, LanguageServers) and servers.budget == 1.5
    assert not servers.handles(workspace / "a.py")  # turned off by its empty command
    await services.close()
    assert await servers.problems(workspace / "a.ts", "x") is None  # closed: no new servers
    assert task_services(workspace).tools.language_servers is None  # no settings, no servers
