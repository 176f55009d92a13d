"""Task behaviour from the settings files: auto-approval, retries, limits, what tools use."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from pycline.app.settings.config import load
from pycline.app.settings.settings_model import LANGUAGE_SERVER_KEYS, Settings
from pycline.core.budget import BudgetLimits
from pycline.core.focus_chain import FocusSettings
from pycline.core.options import TaskSettings
from pycline.terminal.sandbox import (
    SANDBOX_ENV,
    SANDBOX_MODES,
    SandboxMode,
    SandboxPolicy,
    unavailable_reason,
)


def task_settings(
    home: Path,
    *,
    headless: bool,
    approve_all_inside: bool = False,
    mode: str = "act",
    workspace: Path | None = None,
    settings: Settings | None = None,
) -> TaskSettings:
    """`workspace` adds that folder's `.pycline/settings.json` over the global settings
    (`settings`: those already read)."""
    settings = settings or load(home, workspace)
    return TaskSettings(
        auto_approve=settings.auto_approve.policy(),
        approve_all_inside=approve_all_inside,
        headless=headless,
        max_mistakes=settings.max_consecutive_mistakes,
        max_retries=settings.max_retries,
        retry_base_delay=settings.retry_base_delay,
        command_timeout=settings.command_timeout,
        mode=mode,
        auto_condense=_auto_condense(settings),
        context_limit=settings.context_limit,
        tool_call_format=settings.tool_call_format,
    )


def _auto_condense(settings: Settings) -> float | None:
    """The share of the window at which to condense: the threshold when one is set (it alone
    turns condensing on), else Cline's 0.75 when `useAutoCondense` is on."""
    if settings.auto_condense_threshold is not None:
        return settings.auto_condense_threshold
    return 0.75 if settings.use_auto_condense else None


@dataclass(frozen=True, slots=True)
class ToolSettings:
    """What the settings files say the tools use: per-MCP-tool auto-approval, linters, sandbox."""

    mcp_auto_approve: Mapping[str, frozenset[str]] = field(default_factory=dict)
    linters: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    sandbox: SandboxPolicy | None = None


def tool_settings(settings: Settings) -> ToolSettings:
    return ToolSettings(
        mcp_auto_approve={
            server: frozenset(tools) for server, tools in settings.mcp_auto_approve.items()
        },
        linters={glob: tuple(command) for glob, command in settings.linters.items()},
    )


def workspace_tool_settings(
    home: Path, workspace: Path, *, settings: Settings | None = None
) -> ToolSettings:
    """`tool_settings` for `workspace`, with the sandbox its commands run in."""
    settings = settings or load(home, workspace)
    lists = tool_settings(settings)
    return ToolSettings(
        lists.mcp_auto_approve, lists.linters, sandbox_policy(settings, home, workspace)
    )


def sandbox_policy(settings: Settings, home: Path, workspace: Path) -> SandboxPolicy:
    """The sandbox commands run in: `--sandbox`, else the `sandbox` setting, else on wherever
    bubblewrap works (`terminal.sandbox.unavailable_reason` says why not)."""
    from pycline.workspace.ignore import IgnoreRules

    flag = os.environ.get(SANDBOX_ENV, "")
    mode: SandboxMode
    if flag in SANDBOX_MODES:
        mode = flag
    elif settings.sandbox is not None:
        mode = settings.sandbox
    else:
        mode = "off" if unavailable_reason() else "workspace-write"
    from pycline.storage.runtime import hidden_from_commands

    rules = IgnoreRules.load(workspace)
    return SandboxPolicy(
        mode=mode,
        workspace=workspace,
        home=home,
        network=settings.sandbox_network,
        hidden=rules.hidden_paths,
        explicit=flag in SANDBOX_MODES or settings.sandbox is not None,
        runtime=hidden_from_commands(),
        home_visible=tuple(settings.sandbox_readable),
    )


def chromium_setting(home: Path, workspace: Path | None = None) -> str | None:
    """`browserExecutablePath`: the browser the user named, if any."""
    return load(home, workspace).browser_executable_path


def checkpoint_settings(
    home: Path, workspace: Path | None = None, *, settings: Settings | None = None
) -> tuple[bool, int]:
    """`enableCheckpoints` and `checkpointRetention` (0: keep every checkpoint)."""
    settings = settings or load(home, workspace)
    return settings.enable_checkpoints, settings.checkpoint_retention or 0


@dataclass(frozen=True, slots=True)
class DiagnosticsSettings:
    commands: dict[str, tuple[str, ...]]  # `languageServers`: language -> command
    timeout: float  # `diagnosticsTimeout`, seconds
    install_home: Path | None  # where missing servers are installed; None: never
    # A `diagnosticsTimeout` the user set is waited for even while a server starts; by default
    # an edit does not wait for a starting server (its problems come with a later result).
    wait_for_start: bool = False


def diagnostics_settings(
    home: Path, workspace: Path | None = None, *, settings: Settings | None = None
) -> DiagnosticsSettings:
    """`languageServers`, `diagnosticsTimeout` and `installLanguageServers`.

    PYCLINE_LANGUAGE_SERVERS=off turns every language server off (scripts, CI, test suites).
    """
    settings = settings or load(home, workspace)
    commands = {language: tuple(cmd) for language, cmd in settings.language_servers.items()}
    if os.environ.get("PYCLINE_LANGUAGE_SERVERS", "").lower() in ("0", "off", "false", "no"):
        commands = dict.fromkeys(LANGUAGE_SERVER_KEYS, ())
    install_home = home if settings.install_language_servers else None
    chosen = "diagnostics_timeout" in settings.model_fields_set
    return DiagnosticsSettings(commands, settings.diagnostics_timeout, install_home, chosen)


@dataclass(frozen=True, slots=True)
class FeatureSettings:
    focus: FocusSettings
    limits: BudgetLimits
    hooks_enabled: bool
    subagents_enabled: bool


def feature_settings(
    home: Path, workspace: Path | None = None, *, settings: Settings | None = None
) -> FeatureSettings:
    """The focus chain's settings, the spending caps, hooks and sub-agents on or off."""
    settings = settings or load(home, workspace)
    focus = settings.focus_chain_settings
    limits = BudgetLimits(
        max_task_cost=settings.max_task_cost,
        max_session_cost=settings.max_session_cost,
        max_daily_cost=settings.max_daily_cost,
        max_task_tokens=settings.max_task_tokens,
        max_session_tokens=settings.max_session_tokens,
    )
    return FeatureSettings(
        FocusSettings(focus.enabled, focus.remind_cline_interval),
        limits,
        settings.hooks_enabled,
        settings.subagents_enabled,
    )
