"""The built-in local model as a provider (`provider: local`, `model: 1.5b`): its llama-server
starts on loopback the first time a task sends it a request, and stops when pycline exits.

One server per model per pycline process, shared by its tasks; it is the llama.cpp preset's
OpenAI-compatible provider that talks to it, with the model's real context window.
"""

from __future__ import annotations

import asyncio
import atexit
import threading
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from pycline.app.config import ModelConfig
from pycline.errors import ProviderError, ProviderErrorKind
from pycline.localmodel import catalog, provision, runtime
from pycline.localmodel.server import LocalServer, ServerError
from pycline.messages import Message
from pycline.parsing.native import ToolDefinition
from pycline.providers.base import ModelInfo, Provider, StreamChunk

PROVIDER = "local"
START_LIMIT = 600.0  # seconds a model may take to load on a slow, busy machine

_lock = threading.Lock()
_servers: dict[str, LocalServer] = {}


def _stop_all() -> None:
    with _lock:
        servers = list(_servers.values())
        _servers.clear()
    for server in servers:
        server.stop()


atexit.register(_stop_all)


def _home() -> Path:
    from pycline.app.home import pycline_home

    return pycline_home()


def running_server(home: Path, spec: catalog.LocalModel) -> LocalServer:
    """This process's server for `spec`, started now if it is not running."""
    with _lock:
        server = _servers.get(spec.key)
        if server is not None and server.running():
            return server
        if not provision.is_installed(home, spec):
            raise ServerError(
                f"The built-in model {spec.key} is not installed. Run `pycline setup` and "
                "choose the small local model."
            )
        binary = runtime.find_server(home)
        if binary is None:
            raise ServerError("The built-in model's runtime (llama-server) is missing: run "
                              "`pycline setup` and choose the small local model.")  # fmt: skip
        server = LocalServer(
            binary,
            provision.model_path(home, spec),
            context_window=spec.context_window,
            alias=spec.model_id,
            log=home / "logs" / "llama-server.log",
            extra_args=("--parallel", "1"),  # one slot holding the whole context window
        )
        server.start(timeout=START_LIMIT)
        _servers[spec.key] = server
        return server


def stop_servers() -> None:
    """Stop every server this process started (the session is over)."""
    _stop_all()


def _settings(config: ModelConfig, spec: catalog.LocalModel, base_url: str) -> object:
    from pycline.providers.factory import ProviderSettings

    info = {"contextWindow": spec.context_window, **(config.model_info or {})}
    return ProviderSettings(provider="llamacpp", model=spec.model_id, base_url=base_url,
                            model_info=info)  # fmt: skip


class LocalModelProvider:
    """Talks to the built-in model's server, starting it on the first request."""

    def __init__(self, config: ModelConfig, home: Path | None = None) -> None:
        from pycline.providers.factory import ProviderSettings, make_provider

        self._config = config
        self._spec = catalog.model(config.model)
        self._home = home
        settings = _settings(config, self._spec, "http://127.0.0.1:1/v1")
        assert isinstance(settings, ProviderSettings)
        self._info = make_provider(settings).model
        self._inner: Provider | None = None

    @property
    def name(self) -> str:
        return PROVIDER

    @property
    def model(self) -> ModelInfo:
        return self._info

    async def _provider(self) -> Provider:
        if self._inner is None:
            from pycline.providers.factory import ProviderSettings, make_provider

            home = self._home or _home()
            try:
                server = await asyncio.to_thread(running_server, home, self._spec)
            except ServerError as exc:
                raise ProviderError(ProviderErrorKind.OTHER, str(exc)) from exc
            settings = _settings(self._config, self._spec, server.base_url)
            assert isinstance(settings, ProviderSettings)
            self._inner = make_provider(settings)
        return self._inner

    async def stream(
        self, system: str, messages: Sequence[Message], *, tools: Sequence[ToolDefinition] = ()
    ) -> AsyncIterator[StreamChunk]:
        inner = await self._provider()
        async for chunk in inner.stream(system, messages, tools=tools):
            yield chunk

    async def aclose(self) -> None:
        inner, self._inner = self._inner, None
        close = getattr(inner, "aclose", None)
        if close is not None:
            await close()


def build(config: ModelConfig) -> Provider:
    return LocalModelProvider(config)


@dataclass(frozen=True, slots=True)
class Status:
    spec: catalog.LocalModel
    installed: bool
    runtime: Path | None
    runtime_version: str


def status(home: Path, key: str | None = None) -> Status:
    spec = catalog.model(key)
    binary = runtime.find_server(home)
    return Status(
        spec,
        provision.is_installed(home, spec),
        binary,
        runtime.version(binary) if binary is not None else "",
    )
