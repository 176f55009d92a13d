"""settings.json validation: defaults, Cline key names, one-line errors, workspace limits."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from pycline.app.settings.settings_model import (
    AutoApproveSettings,
    Settings,
    check_workspace,
    flatten,
    merge,
    validate,
)
from pycline.core.approval import AutoApprove
from pycline.errors import ConfigError


def test_defaults_match_the_approval_policy_defaults() -> None:
    settings = validate({}, source="s.json")
    assert settings.auto_approve.policy() == AutoApprove()
    policy = AutoApprove()
    assert (policy.read_files, policy.execute_safe_commands) == (True, True)
    # MCP tools ask (as in Cline) unless the user allows a tool, or all of them.
    assert not any(
        getattr(policy, f.name)
        for f in dataclasses.fields(policy)
        if f.name not in ("read_files", "execute_safe_commands")
    )


def test_every_auto_approve_key_is_clines_camel_case_name() -> None:
    keys = {info.alias for info in AutoApproveSettings.model_fields.values()}
    keys.discard("autoSandboxed")  # pycline's own: auto (sandboxed) mode
    assert keys == {
        "readFiles",
        "readFilesExternally",
        "editFiles",
        "editFilesExternally",
        "executeSafeCommands",
        "executeAllCommands",
        "useBrowser",
        "useMcp",
        "yolo",
    }


def test_a_full_settings_file_is_read_with_its_values() -> None:
    settings = validate(
        {
            "provider": "openai",
            "model": "gpt-4o",
            "baseUrl": "http://127.0.0.1:8000/v1",
            "planMode": {"provider": "anthropic", "model": "claude-sonnet-4-5"},
            "profiles": {"local": {"provider": "openai", "model": "llama3", "planMode": {}}},
            "activeProfile": "local",
            "autoApprove": {"editFiles": True, "yolo": False},
            "mcpAutoApprove": {"github": ["list_issues"]},
            "maxConsecutiveMistakes": 5,
            "maxRetries": 0,
            "retryBaseDelay": 2,
            "commandTimeout": 30.5,
            "enableCheckpoints": False,
            "checkpointRetention": 20,
            "browserExecutablePath": "/usr/bin/chromium",
            "autoCondenseThreshold": 0.75,
            "notifications": True,
            "linters": {"*.py": ["ruff", "check", "{file}"]},
        },
        source="s.json",
    )
    assert settings.auto_approve.edit_files and settings.retry_base_delay == 2.0
    assert settings.choice().model == "llama3"  # the active profile wins over the top level
    assert settings.choice("local").plan_mode is not None
    assert settings.mcp_auto_approve == {"github": ["list_issues"]}
    assert settings.model_dump(by_alias=True)["planMode"]["model"] == "claude-sonnet-4-5"


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"autoApprove": {"editFiles": "yes"}}, "'autoApprove.editFiles' must be true or false"),
        ({"autoApprove": {"editFile": True}}, "unknown setting 'autoApprove.editFile'"),
        ({"autoApprove": True}, "'autoApprove' must be an object"),
        ({"maxRetries": -1}, "'maxRetries' must be ≥ 0, not -1"),
        ({"maxConsecutiveMistakes": 0}, "'maxConsecutiveMistakes' must be ≥ 1"),
        ({"maxConsecutiveMistakes": 2.5}, "'maxConsecutiveMistakes' must be a whole number"),
        ({"commandTimeout": "60"}, "'commandTimeout' must be a number, not '60'"),
        ({"autoCondenseThreshold": 1.5}, "'autoCondenseThreshold' must be ≤ 1"),
        ({"provider": "nope"}, "unknown provider 'nope'"),
        ({"baseUrl": "localhost:11434"}, "'baseUrl': must start with http:// or https://"),
        ({"model": " "}, "'model': must not be empty"),
        ({"activeProfile": "work"}, "activeProfile 'work' is not one of the profiles"),
        ({"profiles": {"a": {"modle": "x"}}}, "unknown setting 'profiles.a.modle'"),
        ({"mcpAutoApprove": {"gh": "list"}}, "'mcpAutoApprove.gh' must be a list"),
        ({"linters": {"*.py": []}}, "the command for '*.py' is empty"),
        ({"languageServers": {"cobol": ["x"]}}, "unknown language 'cobol'"),
        ({"diagnosticsTimeout": 0}, "'diagnosticsTimeout' must be > 0"),
        ({"notifications": 1}, "'notifications' must be true or false, not 1"),
        ({"apiKey": "sk-x"}, "'apiKey' looks like a credential"),
        ({"planMode": {"openAiApiKey": "sk-x"}}, "'planMode.openAiApiKey' looks like a credential"),
    ],
)
def test_a_bad_value_is_one_clear_line_naming_the_key(data: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        validate(data, source="/x/settings.json")
    text = str(caught.value)
    assert text.startswith("/x/settings.json: ") and message in text
    assert "\n" not in text and "sk-x" not in text


def test_a_credential_value_is_never_echoed_in_the_error() -> None:
    with pytest.raises(ConfigError) as caught:
        validate({"profiles": {"p": {"apiKey": "sk-very-secret"}}}, source="s.json")
    assert "sk-very-secret" not in str(caught.value)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (
            {"autoApprove": {"executeAllCommands": True}},
            "'autoApprove.executeAllCommands' can only",
        ),
        ({"autoApprove": {"yolo": True}}, "'autoApprove.yolo' can only be turned on"),
        (
            {"autoApprove": {"autoSandboxed": True}},
            "'autoApprove.autoSandboxed' can only be turned on",
        ),
        ({"baseUrl": "http://evil.example/v1"}, "'baseUrl' can only be set in the global"),
        ({"planMode": {"baseUrl": "http://evil.example"}}, "'planMode.baseUrl' can only"),
        ({"linters": {"*": ["sh", "-c", "x"]}}, "'linters' can only be set in the global"),
        ({"mcpAutoApprove": {"s": ["t"]}}, "'mcpAutoApprove' can only"),
        ({"profiles": {}}, "'profiles' can only"),
        ({"browserExecutablePath": "/tmp/x"}, "'browserExecutablePath' can only"),
        ({"languageServers": {"python": ["./evil"]}}, "'languageServers' can only"),
        ({"anthropicApiKey": "k"}, "'anthropicApiKey' looks like a credential"),
    ],
)
def test_a_workspace_file_cannot_widen_approval_or_redirect_keys(
    data: dict[str, Any], message: str
) -> None:
    with pytest.raises(ConfigError) as caught:
        check_workspace(data, source="ws.json")
    assert str(caught.value).startswith("ws.json: ") and message in str(caught.value)


def test_a_workspace_file_may_narrow_approval_and_pick_a_model() -> None:
    local = {"autoApprove": {"readFiles": False}, "model": "small", "activeProfile": "p"}
    check_workspace(local, source="ws.json")
    merged = merge({"autoApprove": {"editFiles": True}, "profiles": {"p": {}}}, local)
    settings = validate(merged, source="ws.json")
    assert settings.auto_approve.edit_files and not settings.auto_approve.read_files


def test_merge_joins_objects_and_replaces_everything_else() -> None:
    merged = merge(
        {"autoApprove": {"editFiles": True}, "linters": {"*.py": ["a"]}, "model": "x"},
        {"autoApprove": {"readFiles": False}, "model": "y"},
    )
    assert merged == {
        "autoApprove": {"editFiles": True, "readFiles": False},
        "linters": {"*.py": ["a"]},
        "model": "y",
    }


def test_flatten_dots_nested_settings_but_keeps_user_named_maps_whole() -> None:
    flat = dict(flatten({"autoApprove": {"yolo": True}, "linters": {"*.py": ["r"]}}))
    assert flat == {"autoApprove.yolo": True, "linters": {"*.py": ["r"]}}


def test_settings_are_immutable() -> None:
    settings = Settings()
    with pytest.raises(ValueError, match="frozen"):
        settings.model = "x"  # type: ignore[misc]
