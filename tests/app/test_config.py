"""Which model pycline talks to: flags, then environment, then saved settings."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from pycline.app.config import ModelConfig, resolve, save
from pycline.errors import ConfigError


def test_flags_win_over_environment_and_settings(
    isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    save(isolated_home, ModelConfig(provider="openai", model="saved-model", api_key="sk-saved"))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env")
    config = resolve(ModelConfig(model="flag-model"), isolated_home)
    assert (config.provider, config.model, config.api_key) == ("openai", "flag-model", "sk-env")


def test_saved_settings_fill_the_gaps(isolated_home: Path) -> None:
    save(
        isolated_home,
        ModelConfig(provider="openai", model="llama3", base_url="http://127.0.0.1:11434/v1"),
    )
    config = resolve(ModelConfig(), isolated_home)
    assert (config.provider, config.model, config.base_url) == (
        "openai",
        "llama3",
        "http://127.0.0.1:11434/v1",
    )


def test_environment_key_picks_the_provider(
    isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant")
    config = resolve(ModelConfig(), isolated_home)
    assert config.provider == "anthropic" and config.model and config.api_key == "sk-ant"


def test_settings_of_another_provider_do_not_leak(isolated_home: Path) -> None:
    save(isolated_home, ModelConfig(provider="openai", model="gpt-x", api_key="sk-openai"))
    config = resolve(ModelConfig(provider="anthropic"), isolated_home)
    assert config.api_key is None and config.model != "gpt-x"


def test_key_is_kept_out_of_settings_and_repr(isolated_home: Path) -> None:
    save(isolated_home, ModelConfig(provider="openai", model="m", api_key="sk-secret-123"))
    settings = (isolated_home / "settings" / "settings.json").read_text(encoding="utf-8")
    assert "sk-secret-123" not in settings
    secrets = isolated_home / "secrets.json"
    assert stat.S_IMODE(os.stat(secrets).st_mode) == 0o600
    assert "sk-secret-123" not in repr(resolve(ModelConfig(), isolated_home))


def test_unknown_provider_is_a_clear_error(isolated_home: Path) -> None:
    with pytest.raises(ConfigError, match="Unknown provider 'nope'"):
        resolve(ModelConfig(provider="nope"), isolated_home)
