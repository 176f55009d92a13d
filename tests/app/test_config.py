"""Which model pycline talks to: flags, then environment, then saved settings."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from pycline.app.settings.config import (
    ModelConfig,
    load,
    resolve,
    resolve_plan,
    save,
    settings_path,
)
from pycline.app.settings.secrets import SecretStore
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


# ---- settings files, profiles, workspace, Plan mode --------------------------------------


def _write(path: Path, data: dict[str, object]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data), encoding="utf-8")


def test_stored_key_is_found_for_a_provider_chosen_by_flag(isolated_home: Path) -> None:
    SecretStore(isolated_home).set("anthropic", "sk-ant-stored")
    config = resolve(ModelConfig(provider="anthropic"), isolated_home)
    assert config.api_key == "sk-ant-stored"


def test_environment_provider_beats_the_saved_one(
    isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    save(isolated_home, ModelConfig(provider="openai", model="gpt-x"))
    monkeypatch.setenv("PYCLINE_PROVIDER", "anthropic")
    monkeypatch.setenv("PYCLINE_MODEL", "claude-env")
    config = resolve(ModelConfig(), isolated_home)
    assert (config.provider, config.model) == ("anthropic", "claude-env")


def test_profile_flag_and_active_profile_pick_the_model(isolated_home: Path) -> None:
    _write(
        settings_path(isolated_home),
        {
            "provider": "anthropic",
            "profiles": {
                "local": {
                    "provider": "openai",
                    "model": "llama3",
                    "baseUrl": "http://127.0.0.1:9/v1",
                },
                "big": {"provider": "anthropic", "model": "claude-opus"},
            },
            "activeProfile": "big",
        },
    )
    assert resolve(ModelConfig(), isolated_home).model == "claude-opus"
    local = resolve(ModelConfig(), isolated_home, profile="local")
    assert (local.provider, local.model, local.base_url) == (
        "openai",
        "llama3",
        "http://127.0.0.1:9/v1",
    )
    with pytest.raises(ConfigError, match="Unknown profile 'nope' \\(profiles: local, big\\)"):
        resolve(ModelConfig(), isolated_home, profile="nope")


def test_workspace_settings_override_the_global_ones(isolated_home: Path, workspace: Path) -> None:
    save(isolated_home, ModelConfig(provider="openai", model="gpt-4o"))
    _write(workspace / ".pycline" / "settings.json", {"model": "gpt-4o-mini", "maxRetries": 1})
    assert resolve(ModelConfig(), isolated_home, workspace=workspace).model == "gpt-4o-mini"
    assert resolve(ModelConfig(), isolated_home).model == "gpt-4o"
    assert load(isolated_home, workspace).max_retries == 1


def test_a_bad_settings_file_is_one_line_naming_file_and_key(isolated_home: Path) -> None:
    _write(settings_path(isolated_home), {"autoApprove": {"yolo": "please"}})
    with pytest.raises(ConfigError) as caught:
        resolve(ModelConfig(), isolated_home)
    assert str(caught.value) == (
        f"{settings_path(isolated_home)}: setting 'autoApprove.yolo' must be true or false, "
        "not 'please'."
    )
    settings_path(isolated_home).write_text("{oops", encoding="utf-8")
    with pytest.raises(ConfigError, match="is not valid JSON \\(line 1"):
        load(isolated_home)


def test_plan_mode_gets_its_own_model_and_key(isolated_home: Path) -> None:
    SecretStore(isolated_home).set("openai", "sk-openai")
    SecretStore(isolated_home).set("anthropic", "sk-anthropic")
    _write(
        settings_path(isolated_home),
        {"provider": "openai", "model": "gpt-4o", "planMode": {"provider": "anthropic"}},
    )
    act = resolve(ModelConfig(), isolated_home)
    plan = resolve_plan(ModelConfig(), isolated_home, act)
    assert act.api_key == "sk-openai"
    assert plan == ModelConfig(
        provider="anthropic", model="claude-sonnet-4-6", api_key="sk-anthropic"
    )


def test_plan_mode_on_the_same_provider_shares_server_and_key(isolated_home: Path) -> None:
    _write(
        settings_path(isolated_home),
        {
            "provider": "openai",
            "model": "qwen-coder",
            "baseUrl": "http://127.0.0.1:9/v1",
            "planMode": {"model": "qwen-thinker"},
        },
    )
    act = resolve(ModelConfig(api_key="k"), isolated_home)
    plan = resolve_plan(ModelConfig(api_key="k"), isolated_home, act)
    assert plan is not None
    assert (plan.model, plan.base_url, plan.api_key) == ("qwen-thinker", act.base_url, "k")


def test_without_plan_settings_or_with_a_model_flag_plan_uses_the_act_model(
    isolated_home: Path,
) -> None:
    save(isolated_home, ModelConfig(provider="openai", model="gpt-4o"))
    act = resolve(ModelConfig(), isolated_home)
    assert resolve_plan(ModelConfig(), isolated_home, act) is None
    _write(
        settings_path(isolated_home),
        {"provider": "openai", "planMode": {"model": "o3"}},
    )
    flags = ModelConfig(model="gpt-4.1")
    assert resolve_plan(flags, isolated_home, resolve(flags, isolated_home)) is None


def test_active_profile_brings_its_own_plan_model(isolated_home: Path) -> None:
    _write(
        settings_path(isolated_home),
        {
            "profiles": {"duo": {"provider": "openai", "model": "a", "planMode": {"model": "b"}}},
            "activeProfile": "duo",
        },
    )
    act = resolve(ModelConfig(), isolated_home)
    plan = resolve_plan(ModelConfig(), isolated_home, act)
    assert act.model == "a" and plan is not None and plan.model == "b"


def test_save_keeps_other_settings_and_refuses_a_bad_url(isolated_home: Path) -> None:
    _write(settings_path(isolated_home), {"notifications": True})
    save(isolated_home, ModelConfig(provider="openai", model="m", base_url="http://127.0.0.1:1"))
    assert load(isolated_home).notifications
    with pytest.raises(ConfigError, match="baseUrl"):
        save(isolated_home, ModelConfig(provider="openai", model="m", base_url="127.0.0.1:1"))
    assert load(isolated_home).base_url == "http://127.0.0.1:1"
