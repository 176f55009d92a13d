"""Choosing another model for a running task (the terminal's `/model`, the web UI's picker)."""

from __future__ import annotations

from pathlib import Path

from pycline.app.config import ModelConfig, resolve
from pycline.app.settings_model import PROVIDERS


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
