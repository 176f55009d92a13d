"""What a project's own `.pycline/settings.json` may say: an allowlist, checked on every alias.

A workspace file comes with code someone else wrote. It is read key by key against the fields a
workspace may set, under every name the settings model accepts (the camelCase alias and the
snake_case field name), so no spelling reaches a field the list does not name. A workspace may pick
a model and make things stricter (fewer auto-approvals, a tighter sandbox, more checkpoints kept,
higher prices: its `modelInfo` prices are lower bounds, see `app.config`); it may not widen what
runs without asking, redirect the saved API key to another server, choose programs to run
(linters, a browser), turn checkpoints off or hold credentials. Everything else is refused with one
line naming the key.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel

from pycline.errors import ConfigError

# Field names (snake_case) a workspace may set, per model; a nested model's own fields are
# checked with its own entry.
_ALLOWED: dict[str, frozenset[str]] = {
    "Settings": frozenset(
        {
            "provider",
            "model",
            "reasoning_effort",
            "thinking_budget",
            "model_info",
            "plan_mode",
            "active_profile",
            "auto_approve",
            "max_consecutive_mistakes",
            "double_check_completion_enabled",
            "max_retries",
            "retry_base_delay",
            "command_timeout",
            "enable_checkpoints",
            "checkpoint_retention",
            "auto_condense_threshold",
            "use_auto_condense",
            "context_limit",
            "notifications",
            "sandbox",
            "sandbox_network",
        }
    ),
    "ModelChoice": frozenset(
        {"provider", "model", "reasoning_effort", "thinking_budget", "model_info"}
    ),
    "ModelInfoSettings": frozenset(
        {
            "context_window",
            "max_tokens",
            "input_price",
            "output_price",
            "cache_writes_price",
            "cache_reads_price",
            "supports_images",
            "supports_prompt_cache",
            "supports_reasoning",
            "supports_temperature",
        }
    ),
    # Only `false` is accepted here (checked below): a workspace may ask for more approvals.
    "AutoApproveSettings": frozenset(
        {
            "read_files",
            "read_files_externally",
            "edit_files",
            "edit_files_externally",
            "execute_safe_commands",
            "execute_all_commands",
            "use_browser",
            "use_mcp",
            "yolo",
            "auto_sandboxed",
        }
    ),
}

# Sandbox levels, loosest first: a workspace may only move right.
SANDBOX_ORDER = ("off", "workspace-write", "read-only")

_SECRET_WORDS = ("apikey", "api_key", "secret", "token", "password")


def is_secret_name(name: str) -> bool:
    lowered = name.lower()
    return lowered == "key" or any(word in lowered for word in _SECRET_WORDS)


def _field_of(model: type[BaseModel], key: str) -> str | None:
    """The field `key` names in `model` (by alias or by field name), else None."""
    for name, info in model.model_fields.items():
        if key == name or key == info.alias:
            return name
    return None


def _nested_model(model: type[BaseModel], field: str) -> type[BaseModel] | None:
    """The model class of a field typed `SomeModel | None`, else None."""
    annotation = model.model_fields[field].annotation
    for candidate in (annotation, *getattr(annotation, "__args__", ())):
        if isinstance(candidate, type) and issubclass(candidate, BaseModel):
            return candidate
    return None


def canonical(
    model: type[BaseModel], data: Mapping[str, Any], *, where: str = ""
) -> dict[str, Any]:
    """`data` with every known key spelled as its camelCase alias, nested models too.

    Two spellings of one field in one object are refused: which one wins would be a guess.
    Unknown keys stay as they are, for validation to report.
    """
    out: dict[str, Any] = {}
    seen: dict[str, str] = {}
    for key, value in data.items():
        field = _field_of(model, key)
        if field is None:
            out[key] = value
            continue
        info = model.model_fields[field]
        alias = info.alias or field
        if field in seen:
            raise ConfigError(f"{where}{seen[field]!r} and {key!r} name the same setting.")
        seen[field] = key
        nested = _nested_model(model, field)
        if nested is not None and isinstance(value, Mapping):
            value = canonical(nested, value, where=where)
        elif isinstance(value, Mapping) and field == "profiles":
            profile = _profile_model(model)
            value = {
                name: canonical(profile, item, where=where) if isinstance(item, Mapping) else item
                for name, item in value.items()
            }
        out[alias] = value
    return out


def _profile_model(settings: type[BaseModel]) -> type[BaseModel]:
    args = getattr(settings.model_fields["profiles"].annotation, "__args__", ())
    profile = args[-1] if args else None
    assert isinstance(profile, type) and issubclass(profile, BaseModel)
    return profile


def check_workspace(
    settings_model: type[BaseModel],
    data: Mapping[str, Any],
    *,
    source: str,
    lower: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """`data` checked against the allowlist and spelled canonically, or a one-line ConfigError.

    `lower` is the (canonical) global settings the workspace file lays over: a sandbox setting
    may only be stricter than the one found there.
    """
    _check_object(settings_model, data, source=source, path="")
    clean = without_nulls(canonical(settings_model, data, where=f"{source}: "))
    _check_sandbox(clean, lower or {}, source=source)
    _check_checkpoints(clean, lower or {}, source=source)
    return clean


def without_nulls(data: Mapping[str, Any]) -> dict[str, Any]:
    """`data` without its `null`s, at any depth: a project's file lays values over the user's
    key by key, and a `null` would not set a value but remove the user's (their prices, their
    Plan-mode model), so it says nothing."""
    return {
        key: without_nulls(value) if isinstance(value, Mapping) else value
        for key, value in data.items()
        if value is not None
    }


def _check_object(
    model: type[BaseModel], data: Mapping[str, Any], *, source: str, path: str
) -> None:
    allowed = _ALLOWED[model.__name__]
    for key, value in data.items():
        dotted = f"{path}{key}"
        field = _field_of(model, key)
        # No setting holds a key, so only an unknown name can be one (`maxTokens` is not).
        if field is None and is_secret_name(key):
            raise ConfigError(
                f"{source}: {dotted!r} looks like a credential; API keys are never kept in "
                "settings files. Store it with `pycline auth PROVIDER`."
            )
        if field is None:
            raise ConfigError(f"{source}: unknown setting {dotted!r}.")
        if field not in allowed:
            raise ConfigError(
                f"{source}: {dotted!r} can only be set in the global settings (a project's files "
                f"must not change it); use `pycline config set {dotted} …` without --workspace."
            )
        if model.__name__ == "AutoApproveSettings" and value is not False:
            raise ConfigError(
                f"{source}: {dotted!r} can only be turned on in the global settings "
                "(a project's files may only ask for more approvals, not fewer)."
            )
        if field == "sandbox_network" and value is not False:
            raise ConfigError(f"{source}: {dotted!r} can only be turned on in the global settings.")
        nested = _nested_model(model, field)
        if nested is not None and isinstance(value, Mapping):
            _check_object(nested, value, source=source, path=f"{dotted}.")


def _check_checkpoints(data: Mapping[str, Any], lower: Mapping[str, Any], *, source: str) -> None:
    """Checkpoints are how the user takes back what a task did: a project may keep more of
    them, never fewer, and never turn them off."""
    if data.get("enableCheckpoints") is False:
        raise ConfigError(
            f"{source}: 'enableCheckpoints' can only be turned off in the global settings."
        )
    wanted, current = data.get("checkpointRetention"), lower.get("checkpointRetention")
    if isinstance(wanted, int) and (
        current is None or (isinstance(current, int) and wanted < current)
    ):
        raise ConfigError(
            f"{source}: 'checkpointRetention' may only keep more checkpoints than the global "
            "settings do."
        )


def _check_sandbox(data: Mapping[str, Any], lower: Mapping[str, Any], *, source: str) -> None:
    wanted = data.get("sandbox")
    if wanted is None or wanted not in SANDBOX_ORDER:
        return  # absent, or invalid: validation reports the latter
    current = lower.get("sandbox")
    floor = SANDBOX_ORDER.index(current) if current in SANDBOX_ORDER else 1
    if SANDBOX_ORDER.index(wanted) < floor:
        raise ConfigError(
            f"{source}: 'sandbox' may only be made stricter by a project's files "
            f"({wanted!r} is looser than {SANDBOX_ORDER[floor]!r})."
        )
