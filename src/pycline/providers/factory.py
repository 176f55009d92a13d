"""Build a provider from a name and plain settings (the app's wiring calls this).

Every SDK is imported only for the provider that is built.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pycline.errors import ConfigError
from pycline.providers import presets
from pycline.providers.base import Provider
from pycline.providers.model_info import resolve_model


@dataclass(frozen=True, slots=True)
class ProviderSettings:
    provider: str
    model: str = ""
    base_url: str | None = None
    api_key: str | None = None
    reasoning_effort: str | None = None  # OpenAI-style hosts
    thinking_budget: int | None = None  # Anthropic (also on Bedrock/Vertex) and Gemini
    model_info: Mapping[str, Any] = field(default_factory=dict)  # the `modelInfo` setting
    # Prices a project's settings asked for: lower bounds, never lower than the real ones.
    price_floor: Mapping[str, float] = field(default_factory=dict)


def make_provider(settings: ProviderSettings) -> Provider:
    name = settings.provider
    preset = presets.preset(name)
    if preset is not None:
        return _openai_compatible(settings, preset)
    if name == "anthropic":
        return _anthropic(settings)
    if name == "gemini":
        return _gemini(settings)
    if name == "bedrock":
        return _bedrock(settings)
    if name == "vertex":
        return _vertex(settings)
    raise ConfigError(f"Unknown provider {name!r}.")


def _openai_compatible(s: ProviderSettings, preset: presets.Preset) -> Provider:
    from pycline.providers.openai_compat import OpenAIProvider

    custom_url = bool(s.base_url) and s.base_url != preset.base_url
    if preset.name == "openai" and custom_url:
        assert s.base_url is not None
        preset = presets.for_custom_url(s.base_url)
    if not s.api_key and not preset.local and not custom_url:
        where = f"set {preset.key_env}, " if preset.key_env else ""
        extra = (
            ", or point --base-url at a local OpenAI-compatible server"
            if preset.name == "openai"
            else ""
        )
        raise ConfigError(
            f"No {preset.label} API key: pass --api-key, {where}or store one with "
            f"`pycline auth {preset.name}`{extra}."
        )
    model_id = s.model or preset.default_model or ""
    if not model_id:
        raise ConfigError(
            f"Which model should {preset.label} run? Pass --model (the name the server lists)."
        )
    base_url = s.base_url or preset.base_url
    info = resolve_model(
        preset.name,
        model_id,
        probe=preset.probe,
        base_url=base_url,
        api_key=s.api_key,
        local=preset.local or (custom_url and presets.is_local_url(base_url)),
        overrides=s.model_info,
        floors=s.price_floor,
    )
    return OpenAIProvider(
        # Local servers accept any key, but the SDK needs one.
        api_key=s.api_key or "not-needed",
        model=info,
        base_url=s.base_url or None,
        preset=preset,
        reasoning_effort=s.reasoning_effort,
    )


def _anthropic(s: ProviderSettings) -> Provider:
    from pycline.providers.anthropic_provider import AnthropicProvider

    if not s.api_key:
        raise ConfigError("No Anthropic API key: pass --api-key or set ANTHROPIC_API_KEY.")
    info = resolve_model("anthropic", s.model, overrides=s.model_info, floors=s.price_floor)
    return AnthropicProvider(
        api_key=s.api_key, model=info, base_url=s.base_url, thinking_budget=s.thinking_budget
    )


def _gemini(s: ProviderSettings) -> Provider:
    from pycline.providers.gemini_provider import INSTALL_HINT, GeminiProvider

    _require("google.genai", INSTALL_HINT)
    if not s.api_key:
        raise ConfigError(
            "No Gemini API key: pass --api-key, set GEMINI_API_KEY, or store one with "
            "`pycline auth gemini`."
        )
    info = resolve_model("gemini", s.model, overrides=s.model_info, floors=s.price_floor)
    return GeminiProvider(
        model=info, api_key=s.api_key, base_url=s.base_url, thinking_budget=s.thinking_budget
    )


def _bedrock(s: ProviderSettings) -> Provider:
    from pycline.providers.cloud import bedrock_provider

    info = resolve_model("bedrock", s.model, overrides=s.model_info, floors=s.price_floor)
    return bedrock_provider(
        model=info,
        api_key=s.api_key,
        base_url=s.base_url,
        thinking_budget=s.thinking_budget,
    )


def _vertex(s: ProviderSettings) -> Provider:
    from pycline.providers.cloud import vertex_provider

    info = resolve_model("vertex", s.model, overrides=s.model_info, floors=s.price_floor)
    # An API key given for Vertex is taken as an OAuth access token (`gcloud auth
    # print-access-token`); without one, Application Default Credentials are used.
    return vertex_provider(
        model=info,
        access_token=s.api_key,
        base_url=s.base_url,
        thinking_budget=s.thinking_budget,
    )


def _require(module: str, hint: str) -> None:
    import importlib.util

    try:
        found = importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:  # the parent package ("google") is missing too
        found = False
    if not found:
        raise ConfigError(hint)
