"""The facts used for a model: the catalogue, else what its server says, else conservative
defaults; then the user's `modelInfo` setting over all of them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import fields, replace
from typing import Any, Final

from pycline.errors import ConfigError
from pycline.providers import catalog
from pycline.providers.base import ModelInfo
from pycline.providers.presets import ProbeKind

# `modelInfo` keys in settings.json (Cline's names) → `ModelInfo` fields.
SETTING_KEYS: Final[Mapping[str, str]] = {
    "contextWindow": "context_window",
    "maxTokens": "max_output_tokens",
    "inputPrice": "input_price",
    "outputPrice": "output_price",
    "cacheWritesPrice": "cache_write_price",
    "cacheReadsPrice": "cache_read_price",
    "supportsImages": "supports_images",
    "supportsPromptCache": "supports_prompt_cache",
    "supportsReasoning": "supports_reasoning",
    "supportsTemperature": "supports_temperature",
}
PRICE_FIELDS: Final = ("input_price", "output_price", "cache_write_price", "cache_read_price")
# A local server often loads a model with far less context than the model allows; when it cannot
# tell us, assume a modest window so history is trimmed before the server silently cuts it.
LOCAL_DEFAULT_WINDOW: Final = 32_768
LOCAL_DEFAULT_OUTPUT: Final = 8_192
# Below this many parameters a model counts as small: it gets the compact prompt and a short
# output limit (a small model that loses its way rambles; on a CPU at ~8 tokens/s, 2,048 tokens
# are already four minutes).
SMALL_MODEL_PARAMETERS: Final = 10_000_000_000
SMALL_MODEL_OUTPUT: Final = 2_048


def is_small(info: ModelInfo) -> bool:
    return 0 < info.parameter_count < SMALL_MODEL_PARAMETERS


def overrides_from_settings(raw: Mapping[str, Any] | None) -> dict[str, Any]:
    """`modelInfo` (camelCase, or `ModelInfo` field names) as `ModelInfo` field values."""
    if not raw:
        return {}
    names = {f.name for f in fields(ModelInfo)} - {"id"}
    out: dict[str, Any] = {}
    for key, value in raw.items():
        if value is None:
            continue
        field = SETTING_KEYS.get(key, key)
        if field not in names:
            raise ConfigError(f"modelInfo: unknown key {key!r}.")
        out[field] = value
    return out


def resolve_model(
    provider: str,
    model_id: str,
    *,
    probe: ProbeKind = "none",
    base_url: str | None = None,
    api_key: str | None = None,
    local: bool = False,
    overrides: Mapping[str, Any] | None = None,
    floors: Mapping[str, float] | None = None,
) -> ModelInfo:
    """The facts for `model_id` at `provider`.

    The server is asked only for a model the catalogue does not know and whose context window
    the user did not set; its answer fills the fields it knows. `floors` (ModelInfo price
    fields) are lower bounds on the prices.
    """
    info = catalog.lookup(provider, model_id)
    user = overrides_from_settings(overrides)
    if not catalog.is_known(info.id):
        facts: dict[str, Any] = {}
        if "context_window" not in user and base_url:
            from pycline.providers.model_probe import probe as ask

            facts = ask(probe, base_url, info.id, api_key=api_key)
        if local and "context_window" not in facts:
            facts.setdefault("context_window", LOCAL_DEFAULT_WINDOW)
            facts.setdefault("max_output_tokens", LOCAL_DEFAULT_OUTPUT)
        if not facts.get("parameter_count"):
            from pycline.providers.model_probe import parameters_from_name

            facts["parameter_count"] = parameters_from_name(info.id)
        info = replace(info, **facts)
    if local:
        info = replace(info, local=True)
        if is_small(info) and "max_output_tokens" not in user:
            info = replace(info, max_output_tokens=min(info.max_output_tokens, SMALL_MODEL_OUTPUT))
    if user:
        try:
            info = replace(info, **user)
        except TypeError as exc:
            raise ConfigError(f"modelInfo: {exc}.") from exc
    # Prices a project's settings ask for: they may raise what is counted, never lower it.
    raised: dict[str, Any] = {
        k: v for k, v in (floors or {}).items() if k in PRICE_FIELDS and v > getattr(info, k)
    }
    if raised:
        info = replace(info, **raised)
    if info.max_output_tokens >= info.context_window:
        # A server-reported or user-set window below the default output limit: leave room for input.
        info = replace(info, max_output_tokens=max(1, info.context_window // 4))
    return info
