"""Model facts as data: context window, output limit, prices and capabilities per model id.

`lookup` finds an entry by exact id or by the longest known id the given one starts with (so a
dated id such as "claude-sonnet-4-5-20250929" finds "claude-sonnet-4-5"). A vendor prefix
("openai/gpt-4o", as OpenRouter spells ids) is ignored, and dots may stand for dashes
("claude-sonnet-4.5"). Unknown models get conservative defaults and a zero price.
"""

from __future__ import annotations

from dataclasses import replace
from functools import cache
from typing import Final, TypeAlias

from pycline.providers.base import ModelInfo

# One row per model: id, context window, max output tokens, then USD per million tokens for
# input, output, cache write and cache read, then capability flags:
#   images, cache (prompt caching), reasoning (streams thinking), no-temperature (rejects it),
#   tools (calls tools reliably natively: Cline's "next-gen" models, so toolCallFormat auto uses it).
# Prices are the vendors' standard tier. OpenAI and DeepSeek cache automatically: writes are free
# and cached input is billed at the cache-read price.
_Row: TypeAlias = tuple[str, int, int, float, float, float, float, str]
_TABLE: Final[tuple[_Row, ...]] = (
    # Anthropic
    ("claude-opus-4-5", 200_000, 64_000, 5.0, 25.0, 6.25, 0.5, "images cache reasoning tools"),
    ("claude-opus-4-1", 200_000, 32_000, 15.0, 75.0, 18.75, 1.5, "images cache reasoning tools"),
    ("claude-opus-4", 200_000, 32_000, 15.0, 75.0, 18.75, 1.5, "images cache reasoning tools"),
    ("claude-sonnet-4-6", 200_000, 64_000, 3.0, 15.0, 3.75, 0.3, "images cache reasoning tools"),
    ("claude-sonnet-4-5", 200_000, 64_000, 3.0, 15.0, 3.75, 0.3, "images cache reasoning tools"),
    ("claude-sonnet-4", 200_000, 64_000, 3.0, 15.0, 3.75, 0.3, "images cache reasoning tools"),
    ("claude-haiku-4-5", 200_000, 64_000, 1.0, 5.0, 1.25, 0.1, "images cache reasoning tools"),
    ("claude-3-7-sonnet", 200_000, 8_192, 3.0, 15.0, 3.75, 0.3, "images cache reasoning"),
    ("claude-3-5-sonnet", 200_000, 8_192, 3.0, 15.0, 3.75, 0.3, "images cache"),
    ("claude-3-5-haiku", 200_000, 8_192, 0.8, 4.0, 1.0, 0.08, "cache"),
    # OpenAI
    ("gpt-4o", 128_000, 16_384, 2.5, 10.0, 0.0, 1.25, "images cache"),
    ("gpt-4o-mini", 128_000, 16_384, 0.15, 0.6, 0.0, 0.075, "images cache"),
    ("gpt-4.1", 1_047_576, 32_768, 2.0, 8.0, 0.0, 0.5, "images cache"),
    ("gpt-4.1-mini", 1_047_576, 32_768, 0.4, 1.6, 0.0, 0.1, "images cache"),
    ("gpt-4.1-nano", 1_047_576, 32_768, 0.1, 0.4, 0.0, 0.025, "images cache"),
    ("o1", 200_000, 100_000, 15.0, 60.0, 0.0, 7.5, "images cache reasoning no-temperature"),
    ("o3", 200_000, 100_000, 2.0, 8.0, 0.0, 0.5, "images cache reasoning no-temperature"),
    ("o3-mini", 200_000, 100_000, 1.1, 4.4, 0.0, 0.55, "cache reasoning no-temperature"),
    ("o4-mini", 200_000, 100_000, 1.1, 4.4, 0.0, 0.275, "images cache reasoning no-temperature"),
    (
        "gpt-5",
        400_000,
        128_000,
        1.25,
        10.0,
        0.0,
        0.125,
        "images cache reasoning no-temperature tools",
    ),
    (
        "gpt-5.1",
        400_000,
        128_000,
        1.25,
        10.0,
        0.0,
        0.125,
        "images cache reasoning no-temperature tools",
    ),
    (
        "gpt-5-mini",
        400_000,
        128_000,
        0.25,
        2.0,
        0.0,
        0.025,
        "images cache reasoning no-temperature tools",
    ),
    (
        "gpt-5-nano",
        400_000,
        128_000,
        0.05,
        0.4,
        0.0,
        0.005,
        "images cache reasoning no-temperature tools",
    ),
    # Google Gemini (prices up to 200k prompt tokens; cached input at the cache-read price)
    (
        "gemini-3-pro-preview",
        1_048_576,
        65_536,
        2.0,
        12.0,
        0.0,
        0.2,
        "images cache reasoning tools",
    ),
    ("gemini-2.5-pro", 1_048_576, 65_536, 1.25, 10.0, 0.0, 0.125, "images cache reasoning tools"),
    ("gemini-2.5-flash", 1_048_576, 65_536, 0.3, 2.5, 0.0, 0.03, "images cache reasoning tools"),
    (
        "gemini-2.5-flash-lite",
        1_048_576,
        65_536,
        0.1,
        0.4,
        0.0,
        0.01,
        "images cache reasoning tools",
    ),
    ("gemini-2.0-flash", 1_048_576, 8_192, 0.1, 0.4, 0.0, 0.025, "images cache"),
    # xAI (grok-4 thinks but neither streams its reasoning nor takes reasoning_effort)
    ("grok-4", 256_000, 32_768, 3.0, 15.0, 0.0, 0.75, "images cache tools"),
    ("grok-code-fast-1", 256_000, 10_000, 0.2, 1.5, 0.0, 0.02, "cache"),
    ("grok-3-mini", 131_072, 8_192, 0.3, 0.5, 0.0, 0.075, "cache reasoning"),
    # Mistral
    ("devstral-medium", 128_000, 8_192, 0.4, 2.0, 0.0, 0.0, ""),
    ("codestral", 256_000, 8_192, 0.3, 0.9, 0.0, 0.0, ""),
    # Open-weight models at Groq and Together
    ("llama-3.3-70b-versatile", 131_072, 32_768, 0.59, 0.79, 0.0, 0.0, ""),
    ("llama-3.3-70b-instruct-turbo", 131_072, 8_192, 0.88, 0.88, 0.0, 0.0, ""),
    # DeepSeek
    ("deepseek-chat", 128_000, 8_192, 0.28, 0.42, 0.0, 0.028, "cache tools"),
    (
        "deepseek-reasoner",
        128_000,
        64_000,
        0.28,
        0.42,
        0.0,
        0.028,
        "cache reasoning no-temperature tools",
    ),
)
_FLAGS: Final = frozenset({"images", "cache", "reasoning", "no-temperature", "tools"})

# What `lookup` answers when no model id is configured.
DEFAULT_MODELS: Final[dict[str, str]] = {
    "anthropic": "claude-sonnet-4-6",
    "openai": "gpt-4.1",
    "gemini": "gemini-2.5-pro",
    "bedrock": "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
    "vertex": "claude-sonnet-4-5@20250929",
}
# Routing prefixes in Bedrock ids ("us.anthropic.claude-…"): a region group, then the vendor.
_ROUTING_PREFIXES: Final = ("us.", "eu.", "apac.", "jp.", "au.", "global.")
_VENDOR_PREFIXES: Final = ("anthropic.", "meta.", "amazon.", "mistral.", "deepseek.")

# Characters that may follow a known id in a longer variant: dates, tags, versions.
_VARIANT_SEPARATORS: Final = ("-", ":", "@", "_", ".")


def lookup(provider: str, model_id: str) -> ModelInfo:
    """The facts for `model_id` (or the provider's default model when it is empty)."""
    wanted = model_id.strip() or DEFAULT_MODELS.get(provider, "")
    known = _find(wanted)
    if known is None:
        return _unknown(provider, wanted)
    return replace(known, id=wanted)


def known_models() -> tuple[str, ...]:
    return tuple(_models())


def is_known(model_id: str) -> bool:
    """True when the catalogue has facts for this id (else `lookup` answers defaults)."""
    return _find(model_id.strip()) is not None


@cache
def _models() -> dict[str, ModelInfo]:
    """The table as `ModelInfo`s, built on first use (no work at import time)."""
    models: dict[str, ModelInfo] = {}
    for model_id, window, max_out, price_in, price_out, cache_write, cache_read, flags in _TABLE:
        flag_set = frozenset(flags.split())
        unknown = flag_set - _FLAGS
        if unknown:
            raise ValueError(f"catalog row {model_id!r} has unknown flags {sorted(unknown)}")
        models[model_id] = ModelInfo(
            id=model_id,
            context_window=window,
            max_output_tokens=max_out,
            input_price=price_in,
            output_price=price_out,
            cache_write_price=cache_write,
            cache_read_price=cache_read,
            supports_images="images" in flag_set,
            supports_prompt_cache="cache" in flag_set,
            supports_reasoning="reasoning" in flag_set,
            supports_temperature="no-temperature" not in flag_set,
            supports_native_tools="tools" in flag_set,
        )
    return models


def _find(model_id: str) -> ModelInfo | None:
    models = _models()
    base = model_id.lower().rsplit("/", 1)[-1]
    for prefixes in (_ROUTING_PREFIXES, _VENDOR_PREFIXES):
        base = next((base[len(p) :] for p in prefixes if base.startswith(p)), base)
    for candidate in dict.fromkeys((base, base.replace(".", "-"))):
        if candidate in models:
            return models[candidate]
        matches = [
            key
            for key in models
            if candidate.startswith(key) and candidate[len(key)] in _VARIANT_SEPARATORS
        ]
        if matches:
            return models[max(matches, key=len)]
    return None


def _unknown(provider: str, model_id: str) -> ModelInfo:
    if provider == "anthropic":
        # Every model behind Anthropic's API takes images and cache_control blocks.
        return ModelInfo(id=model_id, supports_images=True, supports_prompt_cache=True)
    return ModelInfo(id=model_id)
