"""The one place a session's `Task` is made from settings: providers, tools, services, its
capabilities (checkpoints, hand-offs, sub-agents, hooks, slash commands, spending caps, the focus
chain, loop detection), the recorder. Used by sessions and by tests."""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections.abc import Callable, Coroutine, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pycline.app.builders import wiring
from pycline.app.builders.mcp import always_allow_mcp_tool
from pycline.app.builders.provider_cache import ProviderCache
from pycline.app.builders.telemetry import Telemetry
from pycline.app.live.assembly import TaskParts, assemble
from pycline.app.live.handle import TaskHandle
from pycline.app.live.subagents import SessionSpawner
from pycline.app.settings.auto_mode import AutoModeNotice
from pycline.app.settings.config import ModelConfig, load
from pycline.app.settings.hook_trust import HookTrust
from pycline.app.settings.resume_model import resumed_config
from pycline.app.settings.settings_model import Settings
from pycline.app.settings.snapshot import SettingsSnapshot
from pycline.app.settings.task_settings import (
    checkpoint_settings,
    diagnostics_settings,
    feature_settings,
    workspace_tool_settings,
)
from pycline.app.settings.toggles import enabled_workflows
from pycline.context.manager import ContextManager
from pycline.core import resumption
from pycline.core.budget import CostGovernor, SessionSpend
from pycline.core.checkpointing import TaskCheckpoints
from pycline.core.commands import SlashCommands
from pycline.core.double_check import DoubleCheck
from pycline.core.fallback import FallbackChain
from pycline.core.focus_chain import FocusChain
from pycline.core.goal import GoalCheck
from pycline.core.handoffs import Handoffs
from pycline.core.hook_points import HookPoints
from pycline.core.hooks import Hooks
from pycline.core.loops import LoopDetector
from pycline.core.named_files import NamedFiles
from pycline.core.options import TaskOutcome, TaskSettings
from pycline.core.subagents import Subagents
from pycline.core.task import Task
from pycline.errors import ConfigError, StorageError
from pycline.events import Host
from pycline.messages import Content, ImageContent, Message
from pycline.providers.base import Provider
from pycline.storage.records import TaskRecord
from pycline.storage.task_store import TaskFolder, TaskStore
from pycline.tools.base import Tool
from pycline.workspace.paths import Workspace

# How a front end runs each tool it is offered (an editor reports every call and may read, write
# or run a command itself): applied to the tools the builder assembles, never a list of its own.
ToolWrapper = Callable[[Tool], Tool]

if TYPE_CHECKING:
    from pycline.mcp.hub import McpHub
    from pycline.mcp.oauth import LoginPolicy
    from pycline.mcp.settings import ServerConfig


@dataclass
class TaskBuilder:
    home: Path
    config: ModelConfig
    plan_config: ModelConfig | None = None  # Plan mode's own model; None: the same as Act
    mcp: McpHub | None = None  # shared by the session's tasks; see start_mcp
    spend: SessionSpend | None = None  # what this session's tasks spent (spending caps)
    flags: ModelConfig = field(default_factory=ModelConfig)  # the model chosen on the command line
    # The session workspace's settings, read once (None: read for each task).
    snapshot: SettingsSnapshot | None = None
    providers: ProviderCache = field(default_factory=ProviderCache)
    # How remote MCP servers log in (None: from the secrets store, never opening a browser).
    mcp_login: LoginPolicy | None = None
    mcp_elicitation: Literal["decline", "defaults"] = "decline"
    # `fallbackModels` of the model choice in force: where a task moves when its model fails.
    fallback_models: tuple[str, ...] = ()
    telemetry: Telemetry | None = None  # OpenTelemetry spans and metrics; None: off

    async def start_mcp(
        self,
        workspace: Path,
        *,
        extra: Mapping[str, ServerConfig] | None = None,
        login: LoginPolicy | None = None,
        watch: bool = False,
    ) -> None:
        """Connect the configured MCP servers and `extra` ones (in parallel); nothing when none
        is configured, unless `watch` (a long-lived session: servers added later, with `pycline
        mcp add` in a terminal, are picked up as the settings file appears or changes)."""
        from pycline.mcp.hub import McpHub
        from pycline.mcp.settings import global_settings_path, workspace_settings_path

        files = (global_settings_path(), workspace_settings_path(workspace))
        if not extra and not watch and not any(f.is_file() for f in files):
            return
        from pycline.mcp.trust import McpTrust

        # The project's file counts only as the user trusted it (pycline.mcp.trust).
        trusted = McpTrust(self.home).is_trusted
        login = login or self.mcp_login
        if login is None:
            from pycline.app.builders.mcp_login import login_policy

            login = login_policy(self.home, interactive=False)
        self.mcp_login = login
        self.mcp = McpHub(
            workspace=workspace,
            trusted=trusted,
            extra_servers=extra,
            login=login,
            elicitation=self.mcp_elicitation,
        )
        await self.mcp.start()

    @property
    def untrusted_mcp_file(self) -> Path | None:
        """The project MCP file whose servers were left out because it is not trusted."""
        return self.mcp.untrusted_file if self.mcp is not None else None

    async def close(self) -> None:
        if self.mcp is not None:
            await self.mcp.close()
            self.mcp = None
        await self.providers.close()
        if self.telemetry is not None:
            telemetry, self.telemetry = self.telemetry, None
            await asyncio.to_thread(telemetry.close)  # sends what is buffered

    @property
    def store(self) -> TaskStore:
        return TaskStore(self.home)

    def _task(
        self,
        folder: TaskFolder,
        record: TaskRecord,
        host: Host,
        settings: TaskSettings,
        *,
        provider: Provider | None,
        tools: list[Tool] | None,
        history: list[Message] | None = None,
        plan_provider: Provider | None = None,
        wrap: ToolWrapper | None = None,
    ) -> Task:
        act = provider or self.providers.get(self.config)
        plan = plan_provider or (self.providers.get(self.plan_config) if self.plan_config else act)
        root = Path(record.workspace)
        now = self.settings_for(root)
        chromium = now.browser_executable_path
        skill_dirs = wiring.skill_dirs(self.home)
        features_on = feature_settings(self.home, root, settings=now)
        if tools is None:
            tools = wiring.default_tools(chromium=chromium)
            if self.mcp is not None and self.mcp.servers():
                tools += wiring.mcp_tools()
            tools += wiring.skill_tools(root, skill_dirs)
            if features_on.subagents_enabled:
                tools += wiring.subagent_tools(self.home)
        if wrap is not None:
            tools = [wrap(tool) for tool in tools]
        profiles = wiring.mode_profiles(act, plan, tools, root, profile=now.prompt_profile)
        services = wiring.task_services(
            root,
            hub=self.mcp,
            chromium=chromium,
            diagnostics=diagnostics_settings(self.home, root, settings=now),
            settings=workspace_tool_settings(self.home, root, settings=now),
        )
        services.tools.remember_mcp_tool = partial(always_allow_mcp_tool, self.home)
        focus_settings = features_on.focus
        compact = wiring.uses_compact_prompt(act, now.prompt_profile)
        double_check = now.double_check_completion_enabled
        if double_check is None:
            double_check = compact
        if compact:
            # A small model copies the checklist's instructions as prose instead of working.
            focus_settings = dataclasses.replace(focus_settings, enabled=False)
        focus = FocusChain(focus_settings, folder.path / f"focus_chain_taskid_{folder.id}.md")
        focus.load()
        budget = CostGovernor(features_on.limits, self._spend(folder.id))
        budget.task_cost = record.total_cost
        budget.task_tokens = record.tokens_in + record.tokens_out
        hooks = Hooks(
            root,
            [(self.home / "hooks", "global"), (root / ".clinerules" / "hooks", "workspace")],
            trusted=HookTrust(self.home).is_trusted,
            enabled=features_on.hooks_enabled,
        )
        checkpoints = self._checkpoints(root, now)
        spawner = SessionSpawner(
            host,
            self._provider_for,
            lambda tools, native: wiring.system_prompt(tools, root, native=native),
        )
        capabilities = (
            checkpoints,
            Handoffs(),
            Subagents(spawner, services=services, tool_call_format=settings.tool_call_format),
            HookPoints(hooks, settle=checkpoints.settle),
            SlashCommands(partial(enabled_workflows, self.home)),
            budget,
            GoalCheck(services.tools.sandbox, timeout=settings.command_timeout),
            focus,
            LoopDetector(),
            *((NamedFiles(services.access),) if compact else ()),
            *((DoubleCheck(),) if double_check else ()),
            *((AutoModeNotice(),) if settings.auto_approve.auto_sandboxed else ()),
        )
        parts = TaskParts(
            folder=folder,
            record=record,
            workspace=Workspace.at(root),
            profiles=profiles,
            settings=settings,
            services=services,
            capabilities=capabilities,
            history=history if history is not None else [],
            context=ContextManager.from_json(folder.load_context())
            if history
            else ContextManager(),
            prompt_extras=wiring.prompt_extras(
                root, self.mcp, home=self.home, skill_dirs=skill_dirs
            ),
            fallbacks=FallbackChain(self.fallback_models, partial(self._fallback, root)),
        )
        task = assemble(parts, host)
        if self.telemetry is not None and isinstance(host, TaskHandle):
            model = task.provider_for
            traced = self.telemetry.follow(
                lambda: f"{model(task.mode).name}/{model(task.mode).model.id}"
            )
            host.listen(traced, replay=False)
        return task

    def _fallback(self, root: Path, spec: str) -> Provider:
        """The provider of one listed fallback model, set up as `/model` would set it up."""
        from pycline.app.settings.model_switch import model_choices, switched

        base = self.config
        found = model_choices(self.home, root, self.config, self.plan_config).get(spec)
        if found is not None:
            config = dataclasses.replace(found, script=found.script or base.script)
        else:
            config = switched(base, spec, self.home)
        if config.provider is None or not config.model:
            raise ConfigError(f"{spec!r} names no model")
        return self.providers.get(config)

    def _provider_for(self, model_id: str) -> Provider | None:
        """The configured provider with another model (a custom agent's `modelId`)."""
        if self.config.provider == "scripted":
            return None  # one script answers every request, whatever the model
        # The settings' modelInfo describes the configured model, not this one: the catalogue's.
        config = dataclasses.replace(self.config, model=model_id, model_info=None)
        return self.providers.get(config)

    def _spend(self, task_id: str) -> SessionSpend:
        """The session's spending ledger; the day's earlier spend is read once, from history."""
        if self.spend is None:
            now = time.localtime()
            midnight = time.mktime((now.tm_year, now.tm_mon, now.tm_mday, 0, 0, 0, 0, 0, -1))
            earlier = sum(
                r.total_cost
                for r in self.store.index.list(limit=10_000)
                if r.ts >= midnight and r.id != task_id
            )
            self.spend = SessionSpend(earlier_today=earlier)
        return self.spend

    def settings_for(self, folder: Path) -> Settings:
        """The settings in force in `folder` (the session's snapshot for its own workspace)."""
        if self.snapshot is not None:
            return self.snapshot.for_folder(folder)
        return load(self.home, folder)

    def _checkpoints(self, root: Path, settings: Settings) -> TaskCheckpoints:
        """The workspace's shadow-git checkpoints, unless `enableCheckpoints` is false."""
        enabled, retention = checkpoint_settings(self.home, root, settings=settings)
        if not enabled:
            return TaskCheckpoints()
        from pycline.checkpoints import ShadowGit

        return TaskCheckpoints(ShadowGit(root, self.home), retention=retention)

    def new_task(
        self,
        text: str,
        host: Host,
        cwd: Path,
        settings: TaskSettings,
        provider: Provider | None = None,
        plan_provider: Provider | None = None,
        *,
        tools: list[Tool] | None = None,
        wrap: ToolWrapper | None = None,
        goal: str = "",
        goal_attempts: int = 0,
    ) -> Task:
        """`goal`: a command whose exit 0 alone completes the task (`goal_attempts` failed
        checks end it unverified; 0: the default)."""
        workspace = Workspace.at(cwd)
        folder = self.store.create()
        record = TaskRecord(
            id=folder.id,
            ts=time.time(),
            task=text,
            workspace=str(workspace.root),
            goal=goal.strip(),
            goal_max_attempts=goal_attempts,
        )
        # Recorded at once: a process killed before the first history write leaves a task that
        # `pycline resume` can start again, not a nameless folder.
        folder.save_record(record)
        task = self._task(
            folder,
            record,
            host,
            settings,
            provider=provider,
            plan_provider=plan_provider,
            tools=tools,
            wrap=wrap,
        )
        record.provider = task.provider.name
        record.model = task.provider.model.id
        folder.save_record(record)
        return task

    def resume_task(
        self,
        task_id: str | None,
        host: Host,
        cwd: Path,
        settings: TaskSettings,
        provider: Provider | None = None,
        plan_provider: Provider | None = None,
        *,
        tools: list[Tool] | None = None,
        wrap: ToolWrapper | None = None,
        message: str = "",
        images: Sequence[Content] = (),
    ) -> tuple[Task, Callable[[], Coroutine[Any, Any, TaskOutcome]]]:
        """Reopen a saved task (the latest in `cwd` when no id is given) ready to continue,
        with the user's `message` (and `images`) when they gave one."""
        workspace = Workspace.at(cwd)
        if task_id is None:
            task_id = self.store.latest(str(workspace.root))
            if task_id is None:
                raise StorageError(f"No task to resume in {workspace.root}.")
        folder = self.store.open(task_id)
        record = folder.load_record()
        if provider is None:
            ran_with = resumed_config(record, self.config, self.flags, self.home, workspace.root)
            if ran_with is not None:
                provider = self.providers.get(ran_with)
        history, pending = resumption.prepare(folder.load_api_history())
        task = self._task(
            folder,
            record,
            host,
            settings,
            provider=provider,
            plan_provider=plan_provider,
            tools=tools,
            wrap=wrap,
            history=history,
        )
        record.provider = task.provider.name
        record.model = task.provider.model.id
        if not history:
            # Stopped before the model ever answered: it starts again, with what the user added.
            text = f"{record.task}\n\n{message}" if message.strip() else record.task
            pictures = tuple(i for i in images if isinstance(i, ImageContent))
            return task, lambda: task.start(text, pictures)
        when = resumption.ago(record.ts)
        return task, lambda: task.resume(when, [*pending, *images], message)
