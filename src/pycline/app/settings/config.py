"""Which model to talk to, and the settings files behind it.

Order, highest first: command-line flags, environment variables, the workspace's
`.pycline/settings.json`, the global `PYCLINE_HOME/settings/settings.json` (a `--profile` or the
`activeProfile` picks a named model choice there). API keys come from flags, the environment or
the secret store (`pycline.app.settings.secrets`), never from a settings file or task history.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from pycline.app.settings.secrets import SecretStore, secrets_path
from pycline.app.settings.settings_model import (
    PROVIDERS,
    ModelChoice,
    Settings,
    canonical,
    check_workspace,
    merge,
    validate,
    workspace_settings_path,
)
from pycline.errors import ConfigError, redact_url_credentials
from pycline.providers import presets
from pycline.storage.atomic import atomic_write_json, locked
from pycline.workspace.confined import MAX_SETTINGS_BYTES, read_json

__all__ = [
    "BASE_URL_ENV",
    "DEFAULT_MODELS",
    "KEY_ENV",
    "PROVIDERS",
    "ModelConfig",
    "load",
    "load_settings",
    "locked",
    "preset_base_url",
    "resolve",
    "resolve_plan",
    "save",
    "secrets_path",
    "settings_path",
    "write_settings",
]

DEFAULT_MODELS = {
    "openai": "gpt-4o",
    "anthropic": "claude-sonnet-4-6",
    "scripted": "scripted",
    "local": "1.5b",  # the built-in model
    **presets.default_models(),  # openrouter, gemini, bedrock, … (local servers have none)
}

KEY_ENV = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY", **presets.key_envs()}


def preset_base_url(provider: str) -> str | None:
    """The address an OpenAI-compatible provider is reached at by default (None: not one)."""
    found = presets.preset(provider)
    return found.base_url if found is not None else None


BASE_URL_ENV = {"openai": "OPENAI_BASE_URL", "anthropic": "ANTHROPIC_BASE_URL"}


@dataclass(frozen=True, slots=True)
class ModelConfig:
    provider: str | None = None
    model: str | None = None
    base_url: str | None = None
    api_key: str | None = None
    script: str | None = None  # scripted provider: the replies file
    # Model options from the settings: see ModelChoice in settings_model.
    reasoning_effort: str | None = None
    thinking_budget: int | None = None
    model_info: dict[str, Any] | None = None  # `modelInfo`, camelCase keys
    # Prices a project's settings ask for (ModelInfo field names): only ever raise the real ones.
    price_floor: dict[str, float] | None = None

    def __repr__(self) -> str:  # never show the key
        return (
            f"ModelConfig(provider={self.provider!r}, model={self.model!r}, "
            f"base_url={redact_url_credentials(self.base_url or '') or None!r}, "
            f"api_key={'***' if self.api_key else None})"
        )

    def merged_over(self, lower: ModelConfig) -> ModelConfig:
        return ModelConfig(
            provider=self.provider or lower.provider,
            model=self.model or lower.model,
            base_url=self.base_url or lower.base_url,
            api_key=self.api_key or lower.api_key,
            script=self.script or lower.script,
            reasoning_effort=self.reasoning_effort or lower.reasoning_effort,
            thinking_budget=self.thinking_budget or lower.thinking_budget,
            model_info=self.model_info or lower.model_info,
            price_floor=self.price_floor or lower.price_floor,
        )


def settings_path(home: Path) -> Path:
    return home / "settings" / "settings.json"


def _read_json(path: Path) -> dict[str, Any]:
    try:
        data = read_json(path, MAX_SETTINGS_BYTES)
    except FileNotFoundError:
        return {}
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{path} is not valid JSON (line {exc.lineno}: {exc.msg}).") from None
    except ValueError as exc:  # not UTF-8, or nested deeper than any setting
        raise ConfigError(f"{path} is not valid JSON ({exc}).") from None
    except OSError as exc:
        raise ConfigError(f"Cannot read {path}: {exc.strerror or exc}.") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path} must hold a JSON object.")
    return data


def load_settings(home: Path) -> dict[str, Any]:
    """The global settings file as written (not validated, no defaults)."""
    return _read_json(settings_path(home))


def load_workspace_settings(workspace: Path) -> dict[str, Any]:
    return _read_json(workspace_settings_path(workspace))


def load(home: Path, workspace: Path | None = None) -> Settings:
    """The validated settings in force: defaults, then the global file, then the workspace's."""
    path = settings_path(home)
    data = canonical(load_settings(home), source=str(path))
    settings = validate(data, source=str(path))
    if workspace is None:
        return settings
    local_path = workspace_settings_path(workspace)
    local = load_workspace_settings(workspace)
    if not local:
        return settings
    local = check_workspace(local, source=str(local_path), lower=data)
    local = _without_prices(local)
    return validate(merge(_for_other_provider(data, local), local), source=str(local_path))


# A project's `modelInfo` prices are not laid over the user's: they are lower bounds
# (`workspace_price_floor`), so prices of 0 cannot lift the user's spending caps.
_PRICE_KEYS = {
    "inputPrice": "input_price",
    "outputPrice": "output_price",
    "cacheWritesPrice": "cache_write_price",
    "cacheReadsPrice": "cache_read_price",
}


def _without_prices(local: dict[str, Any]) -> dict[str, Any]:
    """The workspace's settings without `modelInfo` prices (in Act and Plan mode): an object
    that held nothing else goes too, so the user's own `modelInfo` stays whole under it."""
    out = _trim_prices(local)
    plan = out.get("planMode")
    if isinstance(plan, dict):
        out["planMode"] = _trim_prices(plan)
    return out


def _trim_prices(holder: dict[str, Any]) -> dict[str, Any]:
    out = dict(holder)
    info = out.get("modelInfo")
    if isinstance(info, dict):
        trimmed = {k: v for k, v in info.items() if k not in _PRICE_KEYS}
        if trimmed:
            out["modelInfo"] = trimmed
        else:
            del out["modelInfo"]
    return out


def workspace_price_floor(
    home: Path, workspace: Path | None, *, plan: bool = False
) -> dict[str, float]:
    """The prices the workspace's settings ask for (ModelInfo field names), for Act or Plan
    (Plan's own, or Act's, whichever is higher)."""
    if workspace is None:
        return {}
    local = load_workspace_settings(workspace)
    if not local:
        return {}
    lower = canonical(load_settings(home), source=str(settings_path(home)))
    local = check_workspace(local, source=str(workspace_settings_path(workspace)), lower=lower)
    found: dict[str, float] = {}
    holders = [local] + ([local.get("planMode")] if plan else [])
    for holder in holders:
        info = holder.get("modelInfo") if isinstance(holder, dict) else None
        if not isinstance(info, dict):
            continue
        for key, field in _PRICE_KEYS.items():
            value = info.get(key)
            if isinstance(value, int | float) and not isinstance(value, bool):
                found[field] = max(float(value), found.get(field, 0.0))
    return found


def _for_other_provider(lower: dict[str, Any], local: dict[str, Any]) -> dict[str, Any]:
    """The global settings without their server address where the workspace picks another
    provider: a key is only ever sent where the user pointed that provider."""
    out = dict(lower)
    if local.get("provider") not in (None, lower.get("provider")):
        out.pop("baseUrl", None)
    plan_local, plan_lower = local.get("planMode"), lower.get("planMode")
    if (
        isinstance(plan_local, dict)
        and isinstance(plan_lower, dict)
        and plan_local.get("provider") not in (None, plan_lower.get("provider"))
    ):
        out["planMode"] = {k: v for k, v in plan_lower.items() if k != "baseUrl"}
    return out


def write_settings(path: Path, data: dict[str, Any], *, home: Path, workspace: bool) -> None:
    """Validate, then write atomically: a bad value never reaches the file."""
    if workspace:
        lower = canonical(load_settings(home), source=str(path))
        local = check_workspace(data, source=str(path), lower=lower)
        validate(merge(lower, local), source=str(path))
    else:
        validate(data, source=str(path))
    atomic_write_json(path, data)


def from_settings(home: Path) -> ModelConfig:
    """The saved model choice (the active profile's, if any) with its stored key."""
    choice = load(home).choice()
    key = SecretStore(home).get(choice.provider) if choice.provider else None
    return ModelConfig(
        provider=choice.provider, model=choice.model, base_url=choice.base_url, api_key=key
    )


def _environment_provider() -> str | None:
    env = os.environ
    if env.get("ANTHROPIC_API_KEY"):
        return "anthropic"
    if env.get("OPENAI_API_KEY") or env.get("OPENAI_BASE_URL"):
        return "openai"
    return None


def from_environment(provider: str | None) -> ModelConfig:
    """The environment's say, for `provider` (else PYCLINE_PROVIDER, else whichever key is set)."""
    env = os.environ
    chosen = provider or env.get("PYCLINE_PROVIDER") or _environment_provider()
    if chosen is None:
        return ModelConfig(model=env.get("PYCLINE_MODEL") or None)
    return ModelConfig(
        provider=chosen,
        model=env.get("PYCLINE_MODEL") or None,
        base_url=env.get(BASE_URL_ENV.get(chosen, "")) or None,
        api_key=env.get(KEY_ENV.get(chosen, "")) or None,
    )


def _model_options(choice: ModelChoice) -> dict[str, Any]:
    """reasoningEffort, thinkingBudget and modelInfo of a model choice, for ModelConfig."""
    info = choice.model_info
    return {
        "reasoning_effort": choice.reasoning_effort,
        "thinking_budget": choice.thinking_budget,
        "model_info": info.model_dump(by_alias=True, exclude_none=True) if info else None,
    }


def _check_provider(provider: str | None) -> None:
    if provider is not None and provider not in PROVIDERS:
        raise ConfigError(f"Unknown provider {provider!r}. Choose one of: {', '.join(PROVIDERS)}.")


def resolve(
    flags: ModelConfig,
    home: Path,
    *,
    workspace: Path | None = None,
    profile: str | None = None,
    settings: Settings | None = None,
) -> ModelConfig:
    """Flags win over the environment, which wins over saved settings and the stored key
    (`settings`: the workspace's, already read)."""
    choice = (settings or load(home, workspace)).choice(profile)
    provider = flags.provider or os.environ.get("PYCLINE_PROVIDER") or choice.provider
    config = flags.merged_over(from_environment(provider))
    # Saved values only apply to the provider they were saved for.
    if choice.provider and config.provider in (None, choice.provider):
        saved = ModelConfig(
            provider=choice.provider,
            model=choice.model,
            base_url=choice.base_url,
            **_model_options(choice),
        )
        config = config.merged_over(saved)
    provider = config.provider
    _check_provider(provider)
    floor = workspace_price_floor(home, workspace)
    if floor:
        config = replace(config, price_floor=floor)
    if provider is None:
        return config
    if not config.api_key and provider in KEY_ENV:
        config = replace(config, api_key=SecretStore(home).get(provider))
    if not config.model:
        config = replace(config, model=DEFAULT_MODELS.get(provider))
    return config


def resolve_plan(
    flags: ModelConfig,
    home: Path,
    act: ModelConfig,
    *,
    workspace: Path | None = None,
    profile: str | None = None,
    settings: Settings | None = None,
) -> ModelConfig | None:
    """Plan mode's own model from `planMode` in the settings; None means "the same as Act".

    A model chosen on the command line (--provider/--model/--base-url) is used for both modes.
    """
    if flags.provider or flags.model or flags.base_url or act.provider is None:
        return None
    plan = (settings or load(home, workspace)).choice(profile).plan_mode
    if plan is None or not (plan.provider or plan.model or plan.base_url):
        return None
    provider = plan.provider or act.provider
    _check_provider(provider)
    if provider == act.provider:
        own = ModelConfig(
            provider=provider,
            model=plan.model or act.model,
            base_url=plan.base_url or act.base_url,
            api_key=act.api_key,
            script=act.script,
        )
        # Plan's own model options, else Act's.
        config = own.merged_over(ModelConfig(**_model_options(plan))).merged_over(act)
        floor = workspace_price_floor(home, workspace, plan=True)
        config = replace(config, price_floor=floor or act.price_floor)
        return None if config == act else config
    env = from_environment(provider)
    key = env.api_key or (SecretStore(home).get(provider) if provider in KEY_ENV else None)
    return ModelConfig(
        provider=provider,
        model=plan.model or DEFAULT_MODELS.get(provider),
        base_url=plan.base_url or env.base_url,
        api_key=key,
        script=act.script,
        price_floor=workspace_price_floor(home, workspace, plan=True) or None,
        **_model_options(plan),
    )


def save(home: Path, config: ModelConfig) -> None:
    """Remember a provider choice; the key goes to the secret store only."""
    with locked(settings_path(home)):
        settings = load_settings(home)
        settings.update({"provider": config.provider, "model": config.model})
        if config.base_url:
            settings["baseUrl"] = config.base_url
        else:
            settings.pop("baseUrl", None)
        write_settings(settings_path(home), settings, home=home, workspace=False)
    if config.api_key and config.provider:
        SecretStore(home).set(config.provider, config.api_key)
