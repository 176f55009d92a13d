"""Sessions: one per workspace (or worktree), running any number of tasks side by side.

A session holds what its tasks share: the resolved model configuration, the MCP hub (the files'
servers plus any a front end hands in), and the task store. Each task runs in its own asyncio task
behind a `TaskHandle`; front ends subscribe to handles and answer their questions. Nothing here
prints or reads input, so the terminal, the web UI and an editor server drive tasks the same way.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from pycline.app.builders import wiring
from pycline.app.builders.builder import TaskBuilder, ToolWrapper
from pycline.app.builders.telemetry import Telemetry
from pycline.app.live.handle import AnswerRejected, CommandRejected, Status, TaskHandle, controls_of
from pycline.app.settings.config import ModelConfig, resolve, resolve_plan
from pycline.app.settings.snapshot import SettingsSnapshot
from pycline.commands import Cancel
from pycline.core.modes import Mode, as_mode
from pycline.core.options import TaskOutcome, TaskSettings
from pycline.core.task import Task
from pycline.errors import ConfigError, PyclineError
from pycline.messages import ImageContent
from pycline.storage.paths import pycline_home

if TYPE_CHECKING:
    from pycline.app.background.state import FrontEnd
    from pycline.app.builders.mcp_login import McpOptions
    from pycline.mcp.hub import McpHub
    from pycline.mcp.settings import ServerConfig
    from pycline.providers.base import Provider
    from pycline.storage.task_store import TaskStore
    from pycline.tools.base import Tool

__all__ = [
    "AnswerRejected",
    "CommandRejected",
    "ConfigOverrides",
    "Mode",
    "Session",
    "Status",
    "TaskHandle",
    "TaskOptions",
    "TaskOutcome",
    "TaskSettings",
    "as_mode",
]


@dataclass(frozen=True, slots=True)
class ConfigOverrides:
    """Choices made outside the settings files (command-line flags, an editor's request)."""

    provider: str | None = None
    model: str | None = None
    base_url: str | None = None
    api_key: str | None = None
    script: str | None = None  # the scripted provider's replies file
    profile: str | None = None

    @classmethod
    def from_args(cls, args: object) -> ConfigOverrides:
        """The overrides in parsed command-line flags (every front end's model options share
        these names: --provider, --model, --base-url, --api-key, --script, --profile)."""
        names = ("provider", "model", "base_url", "api_key", "script", "profile")
        return cls(**{n: getattr(args, n, None) for n in names})

    def flags(self) -> ModelConfig:
        return ModelConfig(
            provider=self.provider,
            model=self.model,
            base_url=self.base_url,
            api_key=self.api_key,
            script=self.script,
        )


@dataclass(frozen=True, slots=True)
class TaskOptions:
    """How one task runs. `settings` replaces what the settings files say; `provider` and
    `tools` replace the configured ones (embedding, tests)."""

    headless: bool = False
    approve_all_inside: bool = False  # headless --yes
    settings: TaskSettings | None = None
    # The models chosen for this task (the terminal's `/model`); None: as configured.
    model: ModelConfig | None = None
    plan_model: ModelConfig | None = None
    provider: Provider | None = None
    plan_provider: Provider | None = None  # Plan mode's, when `provider` is given
    tools: Sequence[Tool] | None = None
    # How this front end runs each tool (an editor's own reads, writes and terminals).
    wrap_tool: ToolWrapper | None = None
    # A verified goal: only this command's exit 0 completes the task (core.goal); after
    # `max_verify` failed checks (0: the default) it ends unverified.
    verify: str = ""
    max_verify: int = 0
    # Auto mode (app.auto_mode): commands unasked in the offline sandbox, edits inside unasked.
    auto: bool = False


class Session:
    """`front_end`: who runs the session's tasks ("terminal", "web", "editor"); each of its
    tasks is then on the board while it runs, reachable from `pycline tasks`/`attach` and the
    other front ends. None: not listed (a background worker lists its own task; tests)."""

    def __init__(
        self, workspace: Path, home: Path, builder: TaskBuilder, front_end: FrontEnd | None = None
    ) -> None:
        self.workspace = workspace
        self.home = home
        self._builder = builder
        self._handles: dict[str, TaskHandle] = {}
        self._prepared: dict[str, Task] = {}  # made by prepare_task, not started yet
        self._closed = False
        self.front_end = front_end
        self._live: set[asyncio.Task[None]] = set()

    @classmethod
    async def open(
        cls,
        workspace: Path,
        *,
        home: Path | None = None,
        overrides: ConfigOverrides | None = None,
        mcp_servers: Mapping[str, ServerConfig] | None = None,
        front_end: FrontEnd | None = None,
        mcp: McpOptions | None = None,
    ) -> Session:
        """Resolve the model configuration and connect the MCP servers for `workspace`."""
        home = home or pycline_home()
        workspace = workspace.expanduser().resolve()
        overrides = overrides or ConfigOverrides()
        flags, profile = overrides.flags(), overrides.profile
        snapshot = SettingsSnapshot(home, workspace)
        now = snapshot.get()
        config = resolve(flags, home, workspace=workspace, profile=profile, settings=now)
        wiring.warm_up_sdk(config.provider)
        wiring.warm_up_session(workspace)
        plan = resolve_plan(flags, home, config, workspace=workspace, profile=profile, settings=now)
        builder = TaskBuilder(
            home,
            config,
            plan,
            flags=flags,
            snapshot=snapshot,
            fallback_models=tuple(now.choice(profile).fallback_models),
            telemetry=Telemetry.start(now.telemetry),
        )
        if mcp is not None:
            builder.mcp_login, builder.mcp_elicitation = mcp.login, mcp.elicitation
        # The web UI lives long: it watches the MCP settings even when there are none yet.
        await builder.start_mcp(workspace, extra=mcp_servers, watch=front_end == "web")
        return cls(workspace, home, builder, front_end)

    @property
    def store(self) -> TaskStore:
        return self._builder.store

    @property
    def config(self) -> ModelConfig:
        return self._builder.config

    @property
    def plan_config(self) -> ModelConfig | None:
        """Plan mode's own model; None: the same as Act."""
        return self._builder.plan_config

    @property
    def mcp(self) -> McpHub | None:
        """The MCP hub the session's tasks share (None: no server configured)."""
        return self._builder.mcp

    async def reload_mcp(self) -> None:
        """Pick up edited MCP settings or a newly trusted project file."""
        if self._builder.mcp is None:
            await self._builder.start_mcp(self.workspace)
        else:
            await self._builder.mcp.reload()

    def use_model(self, config: ModelConfig, *, mode: Mode = "act") -> None:
        """New and resumed tasks talk to `config` in `mode` (a running one: `TaskHandle.set_model`)."""
        if mode == "act":
            self._builder.config = config
        else:
            self._builder.plan_config = config

    def reconfigure(self, overrides: ConfigOverrides) -> None:
        """Resolve the model choice again after the settings changed; new tasks use it."""
        flags, profile = overrides.flags(), overrides.profile
        now = self._builder.settings_for(self.workspace)
        config = resolve(flags, self.home, workspace=self.workspace, profile=profile, settings=now)
        self._builder.config, self._builder.flags = config, flags
        self._builder.fallback_models = tuple(now.choice(profile).fallback_models)
        self._builder.plan_config = resolve_plan(
            flags, self.home, config, workspace=self.workspace, profile=profile, settings=now
        )

    @property
    def untrusted_mcp_file(self) -> Path | None:
        """A project MCP file whose servers were left out because the user has not trusted it."""
        return self._builder.untrusted_mcp_file

    async def new_task(
        self,
        text: str,
        *,
        images: Sequence[ImageContent] = (),
        mode: Mode | None = None,
        options: TaskOptions | None = None,
    ) -> TaskHandle:
        """Create a task and start running it; its events flow through the returned handle."""
        handle = self.prepare_task(text, mode=mode, options=options)
        self.start_task(handle, text, images=images)
        return handle

    def prepare_task(
        self, text: str = "", *, mode: Mode | None = None, options: TaskOptions | None = None
    ) -> TaskHandle:
        """Create a task without starting it, so that its id is known before its first prompt
        (an editor names its session after it); `start_task` runs it. A task never started
        leaves nothing behind when the session closes."""
        options = options or TaskOptions()
        handle = TaskHandle()
        task = self._builder.new_task(
            text,
            handle,
            self.workspace,
            self._settings(options, mode),
            *self._providers(options),
            tools=list(options.tools) if options.tools is not None else None,
            wrap=options.wrap_tool,
            goal=options.verify,
            goal_attempts=options.max_verify,
        )
        self._attach(handle, task, options)
        self._prepared[handle.id] = task
        return handle

    def _providers(self, options: TaskOptions) -> tuple[Provider | None, Provider | None]:
        """The providers `options` choose (None: the session's)."""
        act, plan = options.provider, options.plan_provider
        if act is None and options.model is not None:
            act = self._builder.providers.get(options.model)
        if plan is None and options.plan_model is not None:
            plan = self._builder.providers.get(options.plan_model)
        return act, plan

    def _attach(self, handle: TaskHandle, task: Task, options: TaskOptions) -> None:
        act = options.model or self.config
        plan = options.plan_model or self.plan_config or act
        handle.attach(task, configs={"act": act, "plan": plan}, switch=self._switch)
        self._handles[handle.id] = handle

    def _switch(self, base: ModelConfig, spec: str) -> tuple[ModelConfig, Provider]:
        config = self.model_for(spec, base)
        return config, self._builder.providers.get(config)

    def model_for(self, spec: str, base: ModelConfig) -> ModelConfig:
        """`[PROVIDER/]MODEL` in place of `base` (the same provider keeps its server, key and
        script; another is set up as the settings say), or the model a saved profile names."""
        from pycline.app.settings.model_switch import switched

        found = self.model_choices().get(spec)
        if found is not None:
            # A scripted session stays scripted: its replies file belongs to the session.
            return dataclasses.replace(found, script=found.script or base.script)
        return switched(base, spec, self.home)

    def model_choices(self) -> dict[str, ModelConfig]:
        """The models to pick from by label (`provider/model`): the configured ones and each
        saved profile's."""
        from pycline.app.settings.model_switch import model_choices

        return model_choices(self.home, self.workspace, self.config, self.plan_config)

    def start_task(
        self, handle: TaskHandle, text: str, *, images: Sequence[ImageContent] = ()
    ) -> None:
        """Run a task made by `prepare_task`, with `text` (and `images`) as its first message."""
        task = self._prepared.pop(handle.id)
        controls_of(handle).begin(text)
        handle.run(lambda: task.start(text, tuple(images)))
        self._go_live(handle)

    def _go_live(self, handle: TaskHandle) -> None:
        """List a task just started on the board while it runs (see `front_end`)."""
        if self.front_end is None:
            return
        from pycline.app.background.live import go_live

        try:
            live = go_live(self.home, self.front_end, handle, self.workspace)
        except (PyclineError, OSError):
            return  # not being listed never stops the task (a runtime folder not ours)

        async def serve() -> None:
            with contextlib.suppress(PyclineError, OSError):
                await live.serve()

        job = asyncio.get_running_loop().create_task(serve(), name=f"live:{handle.id}")
        self._live.add(job)
        job.add_done_callback(self._live.discard)

    async def resume_task(
        self,
        task_id: str | None = None,
        *,
        mode: Mode | None = None,
        options: TaskOptions | None = None,
        message: str = "",
        images: Sequence[ImageContent] = (),
    ) -> TaskHandle:
        """Continue a saved task (the latest in this workspace without an id), with the user's
        `message` (and `images`) when they gave one."""
        options = options or TaskOptions()
        if task_id is not None and (running := self._handles.get(task_id)) and not running.done:
            return running
        handle = TaskHandle()
        task, run = self._builder.resume_task(
            task_id,
            handle,
            self.workspace,
            self._settings(options, mode),
            *self._providers(options),
            tools=list(options.tools) if options.tools is not None else None,
            wrap=options.wrap_tool,
            message=message,
            images=images,
        )
        self._attach(handle, task, options)
        handle.run(run)
        self._go_live(handle)
        return handle

    def _settings(self, options: TaskOptions, mode: Mode | None) -> TaskSettings:
        from pycline.app.settings.task_settings import task_settings

        now = self._builder.settings_for(self.workspace)
        settings = options.settings or task_settings(
            self.home,
            headless=options.headless,
            approve_all_inside=options.approve_all_inside,
            workspace=self.workspace,
            settings=now,
        )
        if options.auto:
            policy = dataclasses.replace(settings.auto_approve, auto_sandboxed=True)
            settings = dataclasses.replace(settings, auto_approve=policy)
        if settings.auto_approve.auto_sandboxed:
            from pycline.app.settings.auto_mode import refusal

            refused = refusal(now, self.home, self.workspace)
            if refused is not None:
                raise ConfigError(refused[:1].upper() + refused[1:] + ".")
        return dataclasses.replace(settings, mode=mode) if mode is not None else settings

    def tasks(self) -> list[TaskHandle]:
        return list(self._handles.values())

    def get(self, task_id: str) -> TaskHandle | None:
        """A task of this session, or a sub-agent one of them started."""
        found = self._handles.get(task_id)
        pending = list(self._handles.values())
        while found is None and pending:
            handle = pending.pop()
            found = next((c for c in handle.children if c.id == task_id), None)
            pending.extend(handle.children)
        return found

    async def close(self) -> None:
        """Cancel the running tasks (each saves itself), close the MCP servers, and remove the
        tasks prepared but never started."""
        if self._closed:
            return
        self._closed = True
        running = [h for h in self._handles.values() if h.started and not h.done]
        for handle in running:
            await handle.send(Cancel())
        for handle in running:
            # A task that failed has already raised through `wait()` to whoever ran it.
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await handle.wait()
        # Their tasks have ended: each takes its record off the board.
        await asyncio.gather(*self._live, return_exceptions=True)
        await self._builder.close()
        for handle in self._handles.values():
            if not handle.started:
                with contextlib.suppress(PyclineError, OSError):
                    self._builder.store.delete(handle.id)

    async def __aenter__(self) -> Session:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()
