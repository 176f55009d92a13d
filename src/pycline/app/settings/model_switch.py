"""Choosing another model for a running task (the terminal's `/model`, the web UI's picker)."""

from __future__ import annotations

from pathlib import Path

from pycline.app.settings.config import ModelConfig, load, resolve
from pycline.app.settings.settings_model import PROVIDERS
from pycline.errors import ConfigError


def switched(base: ModelConfig, spec: str, home: Path) -> ModelConfig:
    """`[PROVIDER/]MODEL` in place of `base`, the model in use.

    The same provider keeps its server, key and script; another provider is set up as the
    settings and environment say (its stored key, its preset's address).
    """
    provider, _, model = spec.partition("/")
    if not model or provider not in PROVIDERS:
        # OpenRouter ids have slashes of their own: `anthropic/claude-…` is a model there.
        provider, model = "", spec
    if provider and provider != base.provider:
        return resolve(ModelConfig(provider=provider, model=model), home)
    return ModelConfig(
        provider=base.provider,
        model=model,
        base_url=base.base_url,
        api_key=base.api_key,
        script=base.script,
    )


def label(config: ModelConfig) -> str:
    """How a model is named in a picker: `provider/model`."""
    return f"{config.provider}/{config.model}" if config.model else str(config.provider)


def model_choices(
    home: Path, workspace: Path, *configs: ModelConfig | None
) -> dict[str, ModelConfig]:
    """The models a session can pick from, by label: `configs` and every saved profile's (a
    broken profile is left out)."""
    found: dict[str, ModelConfig] = {}
    for config in configs:
        if config is not None and config.provider is not None:
            found.setdefault(label(config), config)
    try:
        profiles = list(load(home, workspace).profiles)
    except ConfigError:
        profiles = []
    for name in profiles:
        try:
            config = resolve(ModelConfig(), home, workspace=workspace, profile=name)
        except ConfigError:
            continue
        if config.provider is not None:
            found.setdefault(label(config), config)
    return found
