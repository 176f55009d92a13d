"""The one place where concrete classes are chosen: providers, tools, stores, prompts."""

from __future__ import annotations

import asyncio
import dataclasses
import os
import platform
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from pycline.app.settings.config import ModelConfig
from pycline.app.settings.task_settings import DiagnosticsSettings, ToolSettings
from pycline.core.commands import ON_REQUEST_TOOLS
from pycline.core.modes import Mode, ModeProfile, tools_for
from pycline.core.services import TaskServices
from pycline.errors import ConfigError
from pycline.prompts.compact import PromptProfile, build_compact_prompt
from pycline.prompts.compact import offered as compact_offered
from pycline.prompts.system import SystemInfo, build_system_prompt
from pycline.providers.base import Provider
from pycline.providers.model_info import is_small
from pycline.tools.base import Tool
from pycline.tools.services import ToolServices

if TYPE_CHECKING:
    from pycline.mcp.hub import McpHub


def build_provider(config: ModelConfig) -> Provider:
    if config.provider is None:
        raise ConfigError(
            "No model is configured. Run `pycline` once to set one up, or pass --provider "
            "(openai, anthropic, openrouter, ollama, gemini, …) with --api-key / --base-url, or "
            "set OPENAI_API_KEY or ANTHROPIC_API_KEY."
        )
    model_id = config.model or ""
    if config.provider == "scripted":
        from pycline.providers.scripted import ScriptedProvider

        if not config.script:
            raise ConfigError("The scripted provider needs --script FILE (a JSON list of replies).")
        scripted = ScriptedProvider.from_file(config.script)
        if model_id and model_id != scripted.model_info.id:
            # It plays the model chosen for it (`/model scripted/NAME` shows NAME in use).
            scripted.model_info = dataclasses.replace(scripted.model_info, id=model_id)
        return scripted
    if config.provider == "local":
        from pycline.app.builders import local_model

        return local_model.build(config)  # its server starts on the first request
    from pycline.providers.factory import ProviderSettings, make_provider

    # Every other provider (OpenAI-compatible presets, Anthropic, Gemini, Bedrock, Vertex).
    return make_provider(
        ProviderSettings(
            provider=config.provider,
            model=model_id,
            base_url=config.base_url,
            api_key=config.api_key,
            reasoning_effort=config.reasoning_effort,
            thinking_budget=config.thinking_budget,
            model_info=config.model_info or {},
            price_floor=config.price_floor or {},
        )
    )


# The SDK each provider's adapter imports on its first request.
_SDKS = {
    "anthropic": "anthropic",
    "bedrock": "anthropic",
    "vertex": "anthropic",
    "gemini": "httpx2",
}


def warm_up_sdk(provider: str | None) -> None:
    """Start importing the provider's SDK on a thread (a few hundred ms) while the task is being
    prepared, so the first request does not wait for it; Python's import lock makes the task's
    own import wait for this one rather than run twice."""
    if provider is None or provider == "scripted":
        return
    import importlib
    import threading

    module = _SDKS.get(provider, "openai")
    threading.Thread(
        target=importlib.import_module, args=(module,), name="sdk-import", daemon=True
    ).start()


def warm_up_session(workspace: Path) -> None:
    """Start, on threads, what the first task of a session would otherwise wait for before its
    first request: the sandbox's probe (one bwrap run) and the user's shell environment (a
    `bash -i`). Each is cached for the process; whoever needs it first waits only for the rest."""
    import threading

    from pycline.terminal.sandbox import bwrap_path
    from pycline.terminal.user_shell import prefetch as prefetch_shell

    threading.Thread(target=bwrap_path, name="sandbox-probe", daemon=True).start()
    prefetch_shell(workspace)


def browser_status(chromium: str | None = None) -> str | None:
    """None when the browser tool can be offered; else why not and how to enable it.

    `chromium` is the `browserExecutablePath` setting; `$PYCLINE_CHROMIUM` and the system's
    Chromium are looked for after it.
    """
    from pycline.tools.browser import browser_available

    return browser_available(executable_path=chromium)


def default_tools(*, browser: bool | None = None, chromium: str | None = None) -> list[Tool]:
    """Every tool this build offers; the browser only when Playwright and Chromium are there."""
    from pycline.tools.command import ExecuteCommandTool
    from pycline.tools.definitions import ListCodeDefinitionNamesTool
    from pycline.tools.edit import ReplaceInFileTool, WriteToFileTool
    from pycline.tools.handoff import (
        CONDENSE_SPEC,
        NEW_TASK_SPEC,
        HandoffSpecTool,
        NewRuleTool,
    )
    from pycline.tools.interaction import AskFollowupQuestionTool, AttemptCompletionTool
    from pycline.tools.listing import ListFilesTool
    from pycline.tools.plan import PlanModeRespondTool
    from pycline.tools.read import ReadFileTool
    from pycline.tools.search import SearchFilesTool
    from pycline.tools.web_fetch import WebFetchTool

    tools: list[Tool] = [
        ExecuteCommandTool(),
        ReadFileTool(),
        WriteToFileTool(),
        ReplaceInFileTool(),
        SearchFilesTool(),
        ListFilesTool(),
        ListCodeDefinitionNamesTool(),
        AskFollowupQuestionTool(),
        AttemptCompletionTool(),
        PlanModeRespondTool(),
        WebFetchTool(),
        NewRuleTool(),
        HandoffSpecTool(CONDENSE_SPEC),
        HandoffSpecTool(NEW_TASK_SPEC),
    ]
    if browser is None:
        browser = browser_status(chromium) is None
    if browser:
        from pycline.tools.browser import BrowserActionTool

        tools.append(BrowserActionTool())
    return tools


def uses_compact_prompt(provider: Provider, profile: PromptProfile = "auto") -> bool:
    """The `promptProfile` setting: "compact" or "full" as set; "auto" is compact for a small
    model (fewer than 10B parameters, as its server or its name says)."""
    if profile != "auto":
        return profile == "compact"
    return is_small(provider.model)


def mode_profiles(
    act: Provider,
    plan: Provider,
    tools: Sequence[Tool],
    root: Path,
    *,
    profile: PromptProfile = "auto",
) -> dict[Mode, ModeProfile]:
    """Each mode's provider, tool list and system prompt (Plan may use another model)."""
    profiles: dict[Mode, ModeProfile] = {}
    pairs: tuple[tuple[Mode, Provider], ...] = (("act", act), ("plan", plan))
    for mode, provider in pairs:
        offered = tools_for(mode, tools)
        compact = uses_compact_prompt(provider, profile)
        if compact:
            by_name = {t.spec.name: t for t in offered}
            offered = [by_name[n] for n in compact_offered(list(by_name))]
        profiles[mode] = ModeProfile(
            provider,
            offered,
            system_prompt(offered, root, mode=mode, compact=compact),
            system_prompt(offered, root, mode=mode, native=True, compact=compact),
        )
    return profiles


def skill_dirs(home: Path) -> list[Path]:
    """The global skills folders: pycline's own, and Cline's."""
    return [home / "skills", Path.home() / ".cline" / "skills"]


def skill_tools(root: Path, dirs: Sequence[Path]) -> list[Tool]:
    """`use_skill`, offered only when there is a skill to use."""
    from pycline.tools.skills import UseSkillTool
    from pycline.workspace.skills import discover_skills

    return [UseSkillTool(dirs)] if discover_skills(root, dirs) else []


def agent_dirs(home: Path) -> list[Path]:
    """The custom agents folder (Cline's `~/Documents/Cline/Agents/`)."""
    return [home / "agents"]


def subagent_tools(home: Path) -> list[Tool]:
    """`use_subagents`, or a `use_subagent_<name>` per custom agent when there are any."""
    from pycline.tools.handoff import SUBAGENTS_SPEC, CustomAgentTool, HandoffSpecTool
    from pycline.workspace.agents import discover_agents

    agents = discover_agents(agent_dirs(home))
    if agents:
        return [CustomAgentTool(a) for a in agents]
    return [HandoffSpecTool(SUBAGENTS_SPEC)]


def mcp_tools() -> list[Tool]:
    from pycline.tools.mcp_tools import AccessMcpResourceTool, UseMcpToolTool

    return [UseMcpToolTool(), AccessMcpResourceTool()]


def prompt_extras(
    root: Path, hub: McpHub | None, *, home: Path, skill_dirs: Sequence[Path] = ()
) -> Callable[[Sequence[str]], str]:
    """The parts of the system prompt that change during a task: connected MCP servers, the
    skills, and the user's rules (conditional rules apply once a matching file is in play; the
    files the user switched off are left out, read anew each request)."""
    from pycline.app.settings.toggles import gather_rules
    from pycline.workspace.skills import discover_skills, skills_prompt

    def extras(paths_in_play: Sequence[str]) -> str:
        parts: list[str] = []
        if hub is not None:
            from pycline.mcp.prompt import mcp_prompt_section

            parts.append(mcp_prompt_section(hub.servers()))
        parts.append(skills_prompt(discover_skills(root, skill_dirs)))
        parts.append(gather_rules(home, root, tuple(paths_in_play)))
        return "\n\n".join(p for p in parts if p)

    return extras


def task_services(
    root: Path,
    *,
    hub: McpHub | None = None,
    chromium: str | None = None,
    diagnostics: DiagnosticsSettings | None = None,
    settings: ToolSettings | None = None,
) -> TaskServices:
    """The per-task services: the user's ignore rules, a registry of background processes, the
    browser, the session's MCP hub, and, given `diagnostics` (the language server settings),
    the language servers that check edits (started when the task runs, for the languages the
    workspace holds, or on the first edit of a language); `settings` adds the auto-approval lists, linters and sandbox."""
    from pycline.browser.session import BrowserSession
    from pycline.terminal.background import BackgroundProcesses
    from pycline.terminal.user_shell import prefetch as prefetch_shell
    from pycline.workspace.diagnostics.registry import LanguageServers
    from pycline.workspace.ignore import IgnoreRules

    background = BackgroundProcesses()
    browser = BrowserSession(executable_path=chromium)
    prefetch_shell(root)
    settings = settings or ToolSettings()
    servers = (
        LanguageServers(
            root,
            commands=diagnostics.commands,
            budget=diagnostics.timeout,
            install_home=diagnostics.install_home,
            sandbox=settings.sandbox,
            # A server still starting answers with a later result, unless the user set the wait.
            cold_wait=None if diagnostics.wait_for_start else 0.0,
        )
        if diagnostics is not None
        else None
    )
    return TaskServices(
        access=IgnoreRules.load(root),
        tools=ToolServices(
            mcp_hub=hub,
            mcp_auto_approve=settings.mcp_auto_approve,
            browser=browser,
            # A command still running at its timeout keeps running in the background (dev
            # servers); every background process is stopped when the task ends.
            background=background,
            allow_background=True,
            language_servers=servers,
            linters=settings.linters,
            sandbox=settings.sandbox,
            # Set by a front end's "Proceed While Running" (`ProceedWhileRunning`).
            proceed=asyncio.Event(),
        ),
        closers=[background.stop_all, browser.close, *([servers.close] if servers else [])],
        starters=[servers.warm] if servers else [],
    )


def system_info(cwd: Path) -> SystemInfo:
    return SystemInfo(
        os_name=f"{platform.system()} {platform.release()}",
        shell=os.environ.get("SHELL", "/bin/sh"),
        home=str(Path.home()),
        cwd=str(cwd),
    )


def system_prompt(
    tools: Sequence[Tool],
    cwd: Path,
    *,
    mode: str = "act",
    native: bool = False,
    compact: bool = False,
) -> str:
    # A command's own tool (condense, new_rule) is described when the user types the command.
    build = build_compact_prompt if compact else build_system_prompt
    return build(
        [t.spec for t in tools if t.spec.name not in ON_REQUEST_TOOLS],
        system_info(cwd),
        mode="plan" if mode == "plan" else "act",
        native=native,
    )
