"""Which model a resumed task talks to: the one it ran with, unless the user chose another.

A task is a conversation with one model; picking it up with whatever the settings say today
(another model, another provider) changes who it talks to behind the user's back. A model or
provider named on the command line, or chosen with `/model`, still wins.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from pycline.app.settings.config import ModelConfig, resolve
from pycline.app.settings.settings_model import PROVIDERS
from pycline.errors import ConfigError
from pycline.storage.records import TaskRecord


def resumed_config(
    record: TaskRecord, config: ModelConfig, flags: ModelConfig, home: Path, workspace: Path
) -> ModelConfig | None:
    """The configuration of the model `record` ran with, or None to use the session's own
    (`config`): a flag chose one, the record names none, or that one cannot be set up now."""
    if flags.provider or flags.model or not record.provider or not record.model:
        return None
    if record.provider not in PROVIDERS:
        return None
    if record.provider == config.provider:
        if record.model == config.model:
            return None
        # The settings' model options (context window, reasoning) belong to their own model.
        return replace(
            config,
            model=record.model,
            model_info=None,
            reasoning_effort=None,
            thinking_budget=None,
        )
    wanted = ModelConfig(provider=record.provider, model=record.model)
    try:
        # Its key and base URL as saved for that provider (never another provider's).
        return resolve(wanted, home, workspace=workspace)
    except ConfigError:
        return None
