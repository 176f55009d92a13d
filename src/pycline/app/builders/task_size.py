"""Refusing a task that cannot fit the model's context window, before any request is made."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pycline.errors import ConfigError

if TYPE_CHECKING:
    from pycline.app.settings.config import ModelConfig

# The task may take at most this share of the window: the system prompt, the environment details
# and the model's reply need the rest.
TASK_SHARE = 0.75


def check_task_size(text: str, config: ModelConfig) -> None:
    """ConfigError naming both numbers when `text` is too long for the configured model."""
    from pycline.app.builders.wiring import build_provider
    from pycline.context.tokens import estimate_text

    tokens = estimate_text(text)
    model = build_provider(config).model
    limit = int(model.context_window * TASK_SHARE)
    if tokens > limit:
        raise ConfigError(
            f"The task is about {tokens:,} tokens, but {config.provider}/{model.id} has a "
            f"{model.context_window:,}-token context window (a task may use up to {limit:,} of "
            "it). Shorten the task, put the material in files the agent can read, or choose a "
            "model with a longer context (--model)."
        )
