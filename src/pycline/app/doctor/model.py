"""The configured model: its server reachable, the key accepted, the model offered, and how
long a context it has. One free request (listing the models), never a paid one."""

from __future__ import annotations

import asyncio
from pathlib import Path

from pycline.app.builders import server_check
from pycline.app.doctor.check import Check
from pycline.app.sessions.session import ConfigOverrides
from pycline.app.settings.config import ModelConfig, resolve
from pycline.errors import ConfigError, redact_url_credentials
from pycline.providers import catalog, presets
from pycline.providers.model_info import LOCAL_DEFAULT_WINDOW

_SDK_CREDENTIALS = ("bedrock", "vertex")


async def check_model(home: Path, workspace: Path, overrides: ConfigOverrides) -> list[Check]:
    return await asyncio.to_thread(_check, home, workspace, overrides)


def _check(home: Path, workspace: Path, overrides: ConfigOverrides) -> list[Check]:
    from pycline.app.builders.wiring import build_provider

    try:
        config = resolve(overrides.flags(), home, workspace=workspace, profile=overrides.profile)
    except ConfigError as exc:
        return [Check("model", "fail", str(exc), "pycline setup")]
    if config.provider is None:
        return [
            Check(
                "model",
                "fail",
                "no model is configured",
                "pycline setup (or set OPENAI_API_KEY / ANTHROPIC_API_KEY, or pass --provider)",
            )
        ]
    label = f"{config.provider}/{config.model}"
    if config.provider == "scripted":
        return [Check("model", "ok", "the scripted provider (replays a script; for tests)")]
    if config.provider == "local":  # the built-in model's own checks say the rest
        window = (config.model_info or {}).get("contextWindow")
        detail = f"the built-in model {config.model or ''} (served on loopback by pycline)"
        return [Check("model", "ok", detail + (f"; context {window:,}" if window else ""))]
    try:
        build_provider(config)  # a missing key, SDK or model name is said here
    except ConfigError as exc:
        return [
            Check(
                "model",
                "fail",
                f"{label}: {exc}",
                f"pycline setup, or pycline auth {config.provider}",
            )
        ]
    if config.provider in _SDK_CREDENTIALS:
        reach = Check(
            "model", "ok", f"{label}: credentials come from the cloud SDK (not tried here)"
        )
    else:
        reach = _reachable(config, label)
    return [reach, _window(config)]


def _base_url(config: ModelConfig) -> str | None:
    preset = presets.preset(config.provider or "")
    return config.base_url or (preset.base_url if preset is not None else None)


def _reachable(config: ModelConfig, label: str) -> Check:
    assert config.provider is not None
    url = _base_url(config)
    where = f"{label} at {redact_url_credentials(url)}" if url else label
    reply = server_check.list_models_now(config.provider, config.base_url, config.api_key)
    if reply.status == "rejected":
        return Check(
            "model",
            "fail",
            f"{where}: the key was refused ({reply.reason})",
            f"pycline auth {config.provider} (or set {_key_env(config.provider)})",
        )
    if reply.status == "unreachable":
        return Check(
            "model",
            "fail",
            f"{where}: not reachable ({reply.reason})",
            "check the network and the base URL; a local server must be running",
        )
    if reply.status == "error":
        return Check(
            "model", "fail", f"{where}: {reply.reason}", "check the base URL (pycline setup)"
        )
    keyed = "key accepted" if config.api_key else "reachable"
    model = config.model or ""
    if reply.models and model not in reply.models:
        offered = ", ".join(reply.models[:5]) + (", …" if len(reply.models) > 5 else "")
        return Check(
            "model",
            "warn",
            f"{where}: {keyed}, but the server does not list {model!r} (it has: {offered})",
            "pycline setup, or --model with a listed name",
        )
    return Check("model", "ok", f"{where}: {keyed}, model offered")


def _key_env(provider: str) -> str:
    from pycline.app.settings.config import KEY_ENV

    return KEY_ENV.get(provider, "its key variable")


def _window(config: ModelConfig) -> Check:
    provider, model = config.provider or "", config.model or ""
    setting = (config.model_info or {}).get("contextWindow")
    if isinstance(setting, int):
        return Check("context window", "ok", f"{setting:,} tokens (your modelInfo setting)")
    if catalog.is_known(model):
        window = catalog.lookup(provider, model).context_window
        return Check("context window", "ok", f"{window:,} tokens (pycline's model catalogue)")
    url = _base_url(config)
    if url and provider not in _SDK_CREDENTIALS:
        reported = server_check.context_window(provider, url, model, config.api_key)
        if reported:
            return Check("context window", "ok", f"{reported:,} tokens (as the server reports)")
    preset = presets.preset(provider)
    assumed = LOCAL_DEFAULT_WINDOW if preset is not None and preset.local else 128_000
    return Check(
        "context window",
        "warn",
        f"unknown for {model!r}: pycline assumes {assumed:,} tokens",
        "set it: pycline config set modelInfo '{\"contextWindow\": N}'",
    )
