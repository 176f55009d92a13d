"""Which model to talk to: from flags, then environment variables, then the settings files.

Settings live in `PYCLINE_HOME/settings/settings.json`; keys in `PYCLINE_HOME/secrets.json` (0600),
never in settings or task history.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from pycline.errors import ConfigError
from pycline.storage.atomic import atomic_write_json

PROVIDERS = ("openai", "anthropic", "scripted")

DEFAULT_MODELS = {
    "openai": "gpt-4o",
    "anthropic": "claude-sonnet-4-5",
    "scripted": "scripted",
}

KEY_ENV = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}
BASE_URL_ENV = {"openai": "OPENAI_BASE_URL", "anthropic": "ANTHROPIC_BASE_URL"}


@dataclass(frozen=True, slots=True)
class ModelConfig:
    provider: str | None = None
    model: str | None = None
    base_url: str | None = None
    api_key: str | None = None
    script: str | None = None  # scripted provider: the replies file

    def __repr__(self) -> str:  # never show the key
        return (
            f"ModelConfig(provider={self.provider!r}, model={self.model!r}, "
            f"base_url={self.base_url!r}, api_key={'***' if self.api_key else None})"
        )

    def merged_over(self, lower: ModelConfig) -> ModelConfig:
        return ModelConfig(
            provider=self.provider or lower.provider,
            model=self.model or lower.model,
            base_url=self.base_url or lower.base_url,
            api_key=self.api_key or lower.api_key,
            script=self.script or lower.script,
        )


def settings_path(home: Path) -> Path:
    return home / "settings" / "settings.json"


def secrets_path(home: Path) -> Path:
    return home / "secrets.json"


def _read_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, json.JSONDecodeError) as exc:
        raise ConfigError(f"Cannot read {path}: {exc}") from exc
    if not isinstance(data, dict):
        raise ConfigError(f"{path} must hold a JSON object.")
    return data


def load_settings(home: Path) -> dict[str, Any]:
    return _read_json(settings_path(home))


def from_settings(home: Path) -> ModelConfig:
    data = load_settings(home)
    provider = data.get("provider")
    secrets = _read_json(secrets_path(home))
    key = secrets.get(f"{provider}.apiKey") if provider else None
    return ModelConfig(
        provider=provider if isinstance(provider, str) else None,
        model=data.get("model") if isinstance(data.get("model"), str) else None,
        base_url=data.get("baseUrl") if isinstance(data.get("baseUrl"), str) else None,
        api_key=key if isinstance(key, str) else None,
    )


def from_environment(provider: str | None) -> ModelConfig:
    env = os.environ
    chosen = provider or env.get("PYCLINE_PROVIDER") or None
    if chosen is None:
        if env.get("ANTHROPIC_API_KEY"):
            chosen = "anthropic"
        elif env.get("OPENAI_API_KEY") or env.get("OPENAI_BASE_URL"):
            chosen = "openai"
    if chosen is None:
        return ModelConfig(model=env.get("PYCLINE_MODEL") or None)
    return ModelConfig(
        provider=chosen,
        model=env.get("PYCLINE_MODEL") or None,
        base_url=env.get(BASE_URL_ENV.get(chosen, "")) or None,
        api_key=env.get(KEY_ENV.get(chosen, "")) or None,
    )


def resolve(flags: ModelConfig, home: Path) -> ModelConfig:
    """Flags win over the environment, which wins over saved settings."""
    saved = from_settings(home)
    env = from_environment(flags.provider or saved.provider)
    config = flags.merged_over(env)
    # Saved values only apply to the provider they were saved for.
    if saved.provider and config.provider in (None, saved.provider):
        config = config.merged_over(saved)
    if config.provider is not None and config.provider not in PROVIDERS:
        raise ConfigError(
            f"Unknown provider {config.provider!r}. Choose one of: {', '.join(PROVIDERS)}."
        )
    if config.provider is not None and not config.model:
        config = replace(config, model=DEFAULT_MODELS[config.provider])
    return config


def save(home: Path, config: ModelConfig) -> None:
    """Remember a provider choice; the key goes to the 0600 secrets file only."""
    settings = load_settings(home)
    settings.update({"provider": config.provider, "model": config.model})
    if config.base_url:
        settings["baseUrl"] = config.base_url
    else:
        settings.pop("baseUrl", None)
    atomic_write_json(settings_path(home), settings)
    if config.api_key and config.provider:
        secrets = _read_json(secrets_path(home))
        secrets[f"{config.provider}.apiKey"] = config.api_key
        atomic_write_json(secrets_path(home), secrets, mode=0o600)
