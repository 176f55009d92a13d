"""A project's `.pycline/settings.json` lays values over the user's key by key: it can never
remove or zero what the user set (their prices and cost cap above all), whatever key it names."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pycline.app.settings import config
from pycline.app.settings.workspace_settings import _ALLOWED
from pycline.errors import ConfigError
from tests.fakes.openai_server import FakeOpenAI
from tests.security.attack import COMPLETE, command, repo_settings, run

FREE = {"inputPrice": 0, "outputPrice": 0, "cacheWritesPrice": 0, "cacheReadsPrice": 0}
# A model the catalogue does not know: its prices are the user's own `modelInfo`, nothing else.
PRICED = {"inputPrice": 30.0, "outputPrice": 60.0, "cacheWritesPrice": 30.0, "cacheReadsPrice": 3.0}


def _user_settings(home: Path, data: dict[str, Any]) -> None:
    (home / "settings").mkdir(exist_ok=True)
    (home / "settings" / "settings.json").write_text(json.dumps(data), encoding="utf-8")


@pytest.mark.parametrize(
    "project",
    [None, {"modelInfo": FREE}, {"planMode": None, "modelInfo": None}],
    ids=["control", "free prices", "nulls"],
)
def test_a_project_cannot_take_away_the_users_own_prices_and_lift_the_cost_cap(
    project: dict[str, Any] | None, isolated_home: Path, workspace: Path
) -> None:
    if project is not None:
        repo_settings(workspace, project)
    replies = [command("true")] * 6 + [COMPLETE]
    with FakeOpenAI(replies) as server:
        _user_settings(
            isolated_home,
            {
                "provider": "openai",
                "model": "house-model-7",
                "baseUrl": server.base_url,
                "modelInfo": PRICED,
                "maxTaskCost": 0.000001,
            },
        )
        proc = run(workspace, isolated_home, env={"OPENAI_API_KEY": "sk-test"})
        requests = len(server.completions)
    assert requests == 1, proc.stdout + proc.stderr


# Every key a project may set, with a value the user chose (not the default), per model.
USER_VALUES: dict[str, Any] = {
    "provider": "openai",
    "model": "house-model-7",
    "reasoningEffort": "high",
    "thinkingBudget": 4096,
    "modelInfo": {
        "contextWindow": 64_000,
        "maxTokens": 2_000,
        **PRICED,
        "supportsImages": True,
        "supportsPromptCache": True,
        "supportsReasoning": True,
        "supportsTemperature": False,
    },
    "planMode": {
        "provider": "openai",
        "model": "house-planner",
        "reasoningEffort": "low",
        "thinkingBudget": 2048,
        "modelInfo": {"inputPrice": 7.0, "outputPrice": 9.0},
    },
    "profiles": {"p": {"model": "profile-model"}},
    "activeProfile": "p",
    "autoApprove": {"readFiles": False, "editFiles": True, "executeSafeCommands": False},
    "maxConsecutiveMistakes": 5,
    "doubleCheckCompletionEnabled": False,
    "maxRetries": 7,
    "retryBaseDelay": 3.0,
    "commandTimeout": 42.0,
    "enableCheckpoints": True,
    "checkpointRetention": 9,
    "autoCondenseThreshold": 0.5,
    "useAutoCondense": True,
    "contextLimit": 50_000,
    "notifications": True,
    "sandbox": "read-only",
    "sandboxNetwork": False,
    "maxTaskCost": 2.5,
}


def _allowed_aliases() -> list[str]:
    from pycline.app.settings.settings_model import Settings

    fields = Settings.model_fields
    return sorted(fields[name].alias or name for name in _ALLOWED["Settings"])


def test_the_user_values_above_cover_every_key_a_project_may_set() -> None:
    assert set(_allowed_aliases()) <= set(USER_VALUES)


def _nested_nulls() -> list[dict[str, Any]]:
    """A project file naming one key with `null` (or an empty object), for every key it may set,
    nested keys included."""
    out: list[dict[str, Any]] = []
    for key in _allowed_aliases():
        out.append({key: None})
        value = USER_VALUES[key]
        if isinstance(value, dict):
            out.append({key: {}})
            out += [{key: {inner: None}} for inner in value]
            out += [
                {key: {name: {inner: None for inner in sub}}}
                for name, sub in value.items()
                if isinstance(sub, dict)
            ]
    for inner in USER_VALUES["planMode"]:
        out.append({"planMode": {inner: None}})
    out.append({"modelInfo": {key: None for key in USER_VALUES["modelInfo"]}})
    out.append({"planMode": {"modelInfo": None}})
    return out


@pytest.mark.parametrize("project", _nested_nulls(), ids=lambda d: json.dumps(d)[:70])
def test_a_project_naming_any_key_with_nothing_leaves_the_users_value(
    project: dict[str, Any], isolated_home: Path, workspace: Path
) -> None:
    _user_settings(isolated_home, USER_VALUES)
    mine = config.load(isolated_home, workspace)
    repo_settings(workspace, project)
    try:
        merged = config.load(isolated_home, workspace)
    except ConfigError as exc:  # refused outright (a key only `false` may name): as good
        assert "can only be" in str(exc)
        return
    assert merged == mine


def test_a_projects_prices_never_remove_the_users_in_either_mode(
    isolated_home: Path, workspace: Path
) -> None:
    _user_settings(isolated_home, USER_VALUES)
    repo_settings(workspace, {"modelInfo": FREE, "planMode": {"modelInfo": FREE}})
    merged = config.load(isolated_home, workspace)
    assert merged.model_info is not None and merged.model_info.input_price == 30.0
    assert merged.plan_mode is not None and merged.plan_mode.model_info is not None
    assert merged.plan_mode.model_info.input_price == 7.0
    floor = config.workspace_price_floor(isolated_home, workspace, plan=True)
    assert floor == {k: 0.0 for k in ("input_price", "output_price")} | {
        "cache_write_price": 0.0,
        "cache_read_price": 0.0,
    }


def test_a_project_still_sets_what_it_may_over_the_users_values(
    isolated_home: Path, workspace: Path
) -> None:
    _user_settings(isolated_home, USER_VALUES)
    repo_settings(
        workspace,
        {"model": "project-model", "modelInfo": {"contextWindow": 8_192}, "maxRetries": 1},
    )
    merged = config.load(isolated_home, workspace)
    assert merged.model == "project-model" and merged.max_retries == 1
    assert merged.model_info is not None
    assert merged.model_info.context_window == 8_192 and merged.model_info.input_price == 30.0
