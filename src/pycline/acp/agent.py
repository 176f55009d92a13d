"""The ACP agent: the requests an editor sends, answered with pycline sessions.

A plain class (not a subclass of `acp.Agent`): the SDK then answers methods we do not offer
with "method not found" instead of an empty success.
"""

from __future__ import annotations

import logging
import os
from dataclasses import replace
from pathlib import Path
from typing import Any

import acp
from acp import RequestError
from acp.schema import (
    AgentCapabilities,
    AuthenticateResponse,
    AuthEnvVar,
    AuthMethodAgent,
    CloseSessionResponse,
    EnvVarAuthMethod,
    Implementation,
    InitializeResponse,
    ListSessionsResponse,
    LoadSessionResponse,
    McpCapabilities,
    NewSessionResponse,
    PromptCapabilities,
    PromptResponse,
    ResumeSessionResponse,
    SessionCapabilities,
    SessionCloseCapabilities,
    SessionInfo,
    SessionListCapabilities,
    SessionResumeCapabilities,
    SetSessionConfigOptionResponse,
    SetSessionModeResponse,
)

from pycline import __version__
from pycline.acp import commands
from pycline.acp.inputs import user_input
from pycline.acp.mcp_servers import client_servers
from pycline.acp.options import (
    ModelChoices,
    available_commands,
    mode_state,
)
from pycline.acp.replay import replay
from pycline.acp.session import AcpSession, Busy, ClientOffers
from pycline.app.services.tasks import Tasks
from pycline.app.sessions.session import ConfigOverrides, Session
from pycline.app.settings.config import KEY_ENV, ModelConfig, resolve, resolve_plan
from pycline.app.settings.task_settings import task_settings
from pycline.app.settings.toggles import enabled_workflows
from pycline.errors import PyclineError, StorageError

log = logging.getLogger("pycline.acp")

PROTOCOL_VERSION = 1
PAGE = 50  # sessions per `session/list` page

CONFIG_METHOD = "pycline-config"
ENV_METHODS = {"anthropic-api-key": "anthropic", "openai-api-key": "openai"}
HOW_TO_SET_A_KEY = (
    "Store a key with `pycline auth anthropic` (or openai, openrouter, gemini, …) and pick the "
    "model with `pycline config`, or set ANTHROPIC_API_KEY / OPENAI_API_KEY in the agent's "
    "environment."
)


class PyclineAgent:
    def __init__(self, flags: ConfigOverrides, home: Path) -> None:
        self.flags = flags  # what the command line chose (`pycline acp --provider … --model …`)
        self.home = home
        self.conn: Any = None
        self.offers = ClientOffers()
        self.sessions: dict[str, AcpSession] = {}
        self._initialized = False

    def on_connect(self, conn: Any) -> None:
        self.conn = conn

    # --- setup ----------------------------------------------------------------------------

    async def initialize(
        self,
        protocol_version: int,
        client_capabilities: Any = None,
        client_info: Any = None,
        **kwargs: Any,
    ) -> InitializeResponse:
        if client_capabilities is not None:
            fs = client_capabilities.fs
            self.offers = ClientOffers(
                read=bool(fs and fs.read_text_file),
                write=bool(fs and fs.write_text_file),
                terminal=bool(client_capabilities.terminal),
            )
        self._initialized = True
        return InitializeResponse(
            protocol_version=min(protocol_version, PROTOCOL_VERSION),
            agent_capabilities=AgentCapabilities(
                load_session=True,
                prompt_capabilities=PromptCapabilities(
                    image=True, audio=False, embedded_context=True
                ),
                mcp_capabilities=McpCapabilities(http=True, sse=True),
                session_capabilities=SessionCapabilities(
                    list=SessionListCapabilities(),
                    resume=SessionResumeCapabilities(),
                    close=SessionCloseCapabilities(),
                ),
            ),
            auth_methods=[
                AuthMethodAgent(
                    id=CONFIG_METHOD,
                    name="pycline configuration",
                    description=HOW_TO_SET_A_KEY,
                ),
                *(
                    EnvVarAuthMethod(
                        type="env_var",
                        id=method,
                        name=f"{KEY_ENV[provider]}",
                        description=f"Use the {provider} API key in {KEY_ENV[provider]}",
                        vars=[AuthEnvVar(name=KEY_ENV[provider], label=f"{provider} API key")],
                    )
                    for method, provider in ENV_METHODS.items()
                ),
            ],
            agent_info=Implementation(name="pycline", title="pycline", version=__version__),
        )

    async def authenticate(self, method_id: str, **kwargs: Any) -> AuthenticateResponse:
        self._require_init()
        if method_id in ENV_METHODS:
            provider = ENV_METHODS[method_id]
            if not os.environ.get(KEY_ENV[provider]):
                raise RequestError.auth_required(
                    {"message": f"{KEY_ENV[provider]} is not set in the agent's environment."}
                )
            self.flags = replace(self.flags, provider=provider)
        elif method_id != CONFIG_METHOD:
            raise RequestError.invalid_params({"message": f"Unknown auth method {method_id!r}."})
        self._config(Path.cwd())
        return AuthenticateResponse()

    def _config(self, workspace: Path) -> tuple[ModelConfig, ModelConfig | None]:
        """The session's models; `auth_required` when none is usable."""
        try:
            flags, profile = self.flags.flags(), self.flags.profile
            config = resolve(flags, self.home, workspace=workspace, profile=profile)
            plan = resolve_plan(flags, self.home, config, workspace=workspace, profile=profile)
        except PyclineError as exc:
            raise RequestError.auth_required({"message": f"{exc} {HOW_TO_SET_A_KEY}"}) from exc
        if config.provider is None:
            raise RequestError.auth_required({"message": f"No model is set up. {HOW_TO_SET_A_KEY}"})
        if config.provider in KEY_ENV and not (config.api_key or config.base_url):
            raise RequestError.auth_required(
                {"message": f"No API key for {config.provider}. {HOW_TO_SET_A_KEY}"}
            )
        return config, plan

    def _require_init(self) -> None:
        if not self._initialized:
            raise RequestError.invalid_request({"message": "`initialize` must come first."})

    def _session(self, session_id: str) -> AcpSession:
        self._require_init()
        session = self.sessions.get(session_id)
        if session is None:
            raise RequestError.invalid_params({"message": f"No open session {session_id!r}."})
        return session

    # --- sessions -------------------------------------------------------------------------

    async def _open(self, cwd: str, mcp_servers: list[Any] | None, session_id: str) -> AcpSession:
        self._require_init()
        workspace = Path(cwd)
        if not workspace.is_absolute() or not workspace.is_dir():
            raise RequestError.invalid_params({"message": f"cwd {cwd!r}: not an absolute folder"})
        workspace = workspace.resolve()
        self._config(workspace)  # no usable model: the editor is asked to authenticate
        try:
            settings = task_settings(self.home, headless=False, workspace=workspace)
        except PyclineError as exc:
            raise RequestError.invalid_params({"message": str(exc)}) from exc
        tasks = await Session.open(
            workspace,
            home=self.home,
            overrides=self.flags,
            mcp_servers=client_servers(mcp_servers or []),
            front_end="editor",
        )
        config, plan = tasks.config, tasks.plan_config
        return AcpSession(
            session_id=session_id,
            workspace=workspace,
            session=tasks,
            settings=settings,
            conn=self.conn,
            offers=self.offers,
            models=ModelChoices.gather(self.home, workspace, config, *([plan] if plan else [])),
        )

    def _announce(self, session: AcpSession) -> None:
        self.sessions[session.id] = session
        workflows = enabled_workflows(self.home, session.workspace)
        session.outbox.send(acp.helpers.update_available_commands(available_commands(workflows)))

    async def new_session(
        self,
        cwd: str,
        additional_directories: list[str] | None = None,
        mcp_servers: list[Any] | None = None,
        **kwargs: Any,
    ) -> NewSessionResponse:
        session = await self._open(cwd, mcp_servers, "")
        try:
            session.create_task()
        except PyclineError as exc:
            await session.close()
            raise RequestError.internal_error({"message": str(exc)}) from exc
        self._announce(session)
        return NewSessionResponse(
            session_id=session.id,
            modes=mode_state(session.settings.mode),
            config_options=session.config_options(),
        )

    async def _reopen(self, cwd: str, session_id: str, mcp_servers: list[Any] | None) -> AcpSession:
        self._require_init()
        old = self.sessions.pop(session_id, None)
        if old is not None:
            await old.close()
        try:
            shown = await Tasks(self.home).transcript(session_id)
        except StorageError as exc:
            raise RequestError.invalid_params({"message": str(exc)}) from exc
        session = await self._open(cwd, mcp_servers, session_id)
        session.saved_log = shown
        return session

    async def load_session(
        self,
        cwd: str,
        session_id: str,
        mcp_servers: list[Any] | None = None,
        additional_directories: list[str] | None = None,
        **kwargs: Any,
    ) -> LoadSessionResponse:
        session = await self._reopen(cwd, session_id, mcp_servers)
        for update in replay(session.saved_log):
            session.outbox.send(update)
        self._announce(session)
        await session.outbox.drain()
        return LoadSessionResponse(
            modes=mode_state(session.settings.mode), config_options=session.config_options()
        )

    async def resume_session(
        self,
        session_id: str,
        cwd: str,
        additional_directories: list[str] | None = None,
        mcp_servers: list[Any] | None = None,
        **kwargs: Any,
    ) -> ResumeSessionResponse:
        session = await self._reopen(cwd, session_id, mcp_servers)
        self._announce(session)
        return ResumeSessionResponse(
            modes=mode_state(session.settings.mode), config_options=session.config_options()
        )

    async def close_session(self, session_id: str, **kwargs: Any) -> CloseSessionResponse:
        session = self._session(session_id)
        del self.sessions[session_id]
        await session.close()
        return CloseSessionResponse()

    async def list_sessions(
        self, cwd: str | None = None, cursor: str | None = None, **kwargs: Any
    ) -> ListSessionsResponse:
        self._require_init()
        start = int(cursor) if cursor and cursor.isdigit() else 0
        where = Path(cwd) if cwd is not None else None
        records = Tasks(self.home).records(workspace=where, limit=10_000)
        records = [r for r in records if r.task]
        page = records[start : start + PAGE]
        more = start + PAGE < len(records)
        return ListSessionsResponse(
            sessions=[
                SessionInfo(
                    session_id=r.id,
                    cwd=r.workspace,
                    title=" ".join(r.task.split())[:120],
                    updated_at=_iso(r.ts),
                )
                for r in page
            ],
            next_cursor=str(start + PAGE) if more else None,
        )

    # --- settings -------------------------------------------------------------------------

    async def set_session_mode(
        self, session_id: str, mode_id: str, **kwargs: Any
    ) -> SetSessionModeResponse:
        session = self._session(session_id)
        if mode_id not in ("act", "plan"):
            raise RequestError.invalid_params({"message": f"Unknown mode {mode_id!r}."})
        await session.set_mode("act" if mode_id == "act" else "plan")
        return SetSessionModeResponse()

    async def set_config_option(
        self, config_id: str, session_id: str, value: str | bool, **kwargs: Any
    ) -> SetSessionConfigOptionResponse:
        session = self._session(session_id)
        if not isinstance(value, str):
            raise RequestError.invalid_params(
                {"message": f"{config_id} takes a value, not a flag."}
            )
        try:
            match config_id:
                case "mode":
                    if value not in ("act", "plan"):
                        raise KeyError(value)
                    await session.set_mode("act" if value == "act" else "plan")
                case "model" | "plan_model":
                    await session.set_model(
                        "model" if config_id == "model" else "plan_model", value
                    )
                case "auto_approve":
                    await session.set_preset(value)
                case _:
                    raise RequestError.invalid_params(
                        {"message": f"Unknown config option {config_id!r}."}
                    )
        except (KeyError, PyclineError) as exc:
            raise RequestError.invalid_params(
                {"message": f"{config_id}: {value!r} is not one of the choices."}
            ) from exc
        return SetSessionConfigOptionResponse(config_options=session.config_options())

    # --- prompts --------------------------------------------------------------------------

    async def prompt(self, session_id: str, prompt: list[Any], **kwargs: Any) -> PromptResponse:
        session = self._session(session_id)
        given = user_input(prompt, session.workspace)
        handled = await commands.run_command(session, given)
        if handled is not None:
            return handled
        try:
            return await session.prompt(given)
        except Busy:
            raise RequestError.invalid_request(
                {"message": "A prompt is already running in this session; cancel it first."}
            ) from None

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        session = self.sessions.get(session_id)
        if session is not None:
            session.cancel()

    async def shutdown(self) -> None:
        """The client went away: every task stops and is saved."""
        sessions, self.sessions = list(self.sessions.values()), {}
        for session in sessions:
            await session.close()


def _iso(ts: float) -> str:
    from datetime import UTC, datetime

    return datetime.fromtimestamp(ts, UTC).isoformat()
