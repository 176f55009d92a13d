"""The built-in local model as a provider (`provider: local`, `model: 1.5b`): its llama-server
starts on loopback the first time a task sends it a request, and stops when pycline exits.

One server per model per pycline process, shared by its tasks; it is the llama.cpp preset's
OpenAI-compatible provider that talks to it, with the model's real context window.
"""

from __future__ import annotations

import asyncio
import atexit
import threading
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from pycline.app.settings.config import ModelConfig
from pycline.errors import ProviderError, ProviderErrorKind
from pycline.localmodel import catalog, provision, runtime
from pycline.localmodel.server import LocalServer, ServerError
from pycline.messages import Message
from pycline.parsing.native import ToolDefinition
from pycline.providers.base import ModelInfo, Provider, StreamChunk

PROVIDER = "local"
START_LIMIT = 600.0  # seconds a model may take to load on a slow, busy machine
START_CHECK_LIMIT = 50.0  # within doctor's limit for one check

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
    from pycline.app.settings.home import pycline_home

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
        self,
        system: str,
        messages: Sequence[Message],
        *,
        tools: Sequence[ToolDefinition] = (),
        temperature: float | None = None,
    ) -> AsyncIterator[StreamChunk]:
        inner = await self._provider()
        async for chunk in inner.stream(system, messages, tools=tools, temperature=temperature):
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


# --- for `pycline setup` and `pycline doctor` -------------------------------------------------

Line = Callable[[str], None]
Bar = Callable[[str, int, int], None]


@dataclass(frozen=True, slots=True)
class Plan:
    """What installing the built-in model still takes here, said before it starts."""

    spec: catalog.LocalModel
    download: int  # bytes still to fetch
    disk: int  # bytes still to write
    free: int  # bytes free in PYCLINE_HOME
    runtime: Path | None  # the llama-server found, or None: it will be built
    build_missing: tuple[str, ...]  # what a build needs and this machine lacks

    @property
    def minutes(self) -> int:
        """A rough time: the download at ~10 MB/s, and the build if there is one."""
        fetch = self.download / 10e6 / 60
        build = 0 if self.runtime is not None else runtime.BUILD_MINUTES
        return max(1, round(fetch + build))


def plan(home: Path, key: str | None = None) -> Plan:
    import shutil

    spec = catalog.model(key)
    installed = provision.is_installed(home, spec)
    home.mkdir(parents=True, exist_ok=True)
    binary = runtime.find_server(home)
    return Plan(
        spec=spec,
        download=0 if installed else spec.download_size,
        disk=provision.space_needed(home, spec),
        free=shutil.disk_usage(home).free,
        runtime=binary,
        build_missing=() if binary is not None else tuple(runtime.build_tools_missing()),
    )


def install(home: Path, key: str | None, line: Line, bar: Bar) -> Path:
    """Fetch and verify the model, find or build its runtime, and start it once to check.
    Raises PyclineError (ProvisionError, RuntimeMissing, ServerError) with what went wrong."""
    from pycline.localmodel.progress import Progress

    progress = Progress(line=line, bar=bar)
    spec = catalog.model(key)
    provision.ensure_model(home, spec, progress)
    binary = runtime.ensure_server(home, progress)
    line(f"Starting the model once to check it ({binary.name}, loopback only) ...")
    server = LocalServer(binary, provision.model_path(home, spec),
                         context_window=spec.context_window, alias=spec.model_id,
                         log=home / "logs" / "llama-server.log",
                         extra_args=("--parallel", "1"))  # fmt: skip
    with server:
        pass
    line("The model server started and answered; it starts again whenever a task needs it.")
    return provision.model_path(home, spec)


def discover_servers() -> list[tuple[str, str, str, tuple[str, ...]]]:
    """Local model servers running here: (provider, label, base URL, models) each."""
    from pycline.localmodel.discover import discover

    return [(f.provider, f.label, f.base_url, f.models) for f in discover()]


def honest_note() -> str:
    return catalog.HONEST_NOTE


def size_words(n: int) -> str:
    from pycline.localmodel.progress import size

    return size(n)


def doctor_checks(
    home: Path, configured: str | None, key: str | None
) -> list[tuple[str, str, str, str]]:
    """(name, status, detail, fix) rows: the model installed, the runtime, the server starting.
    The server is started only when the built-in model is the configured one."""
    in_use = configured == PROVIDER
    spec = catalog.model(key if in_use else None)
    found = status(home, spec.key)
    fix = "pycline setup (choose the small local model)"
    if not in_use:
        # Optional when another model is configured: one row, no fix line to act on.
        ready = found.installed and found.runtime is not None
        name = spec.label.split(" (")[0]
        detail = f"{name} ready" if ready else f"{name} not installed (optional: pycline setup)"
        return [("built-in model", "ok" if ready else "off", detail, "")]
    missing = "fail"
    rows: list[tuple[str, str, str, str]] = []
    if found.installed:
        rows.append(("built-in model", "ok", f"{spec.label}: installed, verified", ""))
    else:
        rows.append(("built-in model", missing, f"{spec.label}: not installed", fix))
    if found.runtime is not None:
        rows.append(
            ("built-in model runtime", "ok", f"{found.runtime} ({found.runtime_version})", "")
        )
    else:
        rows.append(("built-in model runtime", missing, "llama-server: not found or built", fix))
    if not found.installed or found.runtime is None:
        rows.append(("built-in model server", "fail", "cannot start: see above", fix))
        return rows
    server = LocalServer(found.runtime, provision.model_path(home, spec),
                         context_window=spec.context_window, alias=spec.model_id,
                         log=home / "logs" / "llama-server.log",
                         extra_args=("--parallel", "1"))  # fmt: skip
    try:
        server.start(timeout=START_CHECK_LIMIT)
        detail = f"starts and answers on loopback (context {spec.context_window:,})"
        rows.append(("built-in model server", "ok", detail, ""))
    except ServerError as exc:
        rows.append(("built-in model server", "fail", str(exc), f"see {server.log}"))
    finally:
        server.stop()
    return rows
