from __future__ import annotations

import pytest

from pycline.providers.base import UsageChunk
from pycline.providers.catalog import DEFAULT_MODELS, known_models, lookup


def test_known_model_has_its_prices_and_limits() -> None:
    info = lookup("anthropic", "claude-sonnet-4-5")
    assert (info.context_window, info.max_output_tokens) == (200_000, 64_000)
    assert (info.input_price, info.output_price) == (3.0, 15.0)
    assert (info.cache_write_price, info.cache_read_price) == (3.75, 0.3)
    assert info.supports_images and info.supports_prompt_cache


def test_dated_model_id_finds_its_family_and_keeps_its_own_id() -> None:
    info = lookup("anthropic", "claude-sonnet-4-5-20250929")
    assert info.id == "claude-sonnet-4-5-20250929"
    assert info.input_price == 3.0


def test_longest_known_prefix_wins() -> None:
    assert lookup("openai", "gpt-4o-mini-2024-07-18").input_price == 0.15
    assert lookup("openai", "gpt-4o-2024-11-20").input_price == 2.5
    assert lookup("openai", "gpt-4.1-nano-2025-04-14").input_price == 0.1


@pytest.mark.parametrize(
    ("model_id", "expected_input_price"),
    [("openai/gpt-4.1-mini", 0.4), ("anthropic/claude-sonnet-4.5", 3.0), ("GPT-4o", 2.5)],
)
def test_vendor_prefix_dots_and_case_are_ignored(
    model_id: str, expected_input_price: float
) -> None:
    assert lookup("openai", model_id).input_price == expected_input_price


def test_a_longer_word_is_not_mistaken_for_a_known_id() -> None:
    assert lookup("openai", "gpt-4oo").input_price == 0.0


def test_unknown_model_gets_conservative_defaults() -> None:
    info = lookup("openai", "llama3.1:8b")
    assert info.id == "llama3.1:8b"
    assert info.context_window == 128_000
    assert (info.input_price, info.output_price) == (0.0, 0.0)
    assert not info.supports_images


def test_unknown_anthropic_model_still_caches_and_takes_images() -> None:
    info = lookup("anthropic", "claude-future-9")
    assert info.supports_prompt_cache and info.supports_images
    assert info.context_window == 128_000


def test_empty_model_id_means_the_providers_default() -> None:
    assert lookup("anthropic", "").id == DEFAULT_MODELS["anthropic"]
    assert lookup("openai", "  ").id == DEFAULT_MODELS["openai"]


@pytest.mark.parametrize("model_id", ["o3", "o4-mini-2025-04-16", "gpt-5", "gpt-5-mini", "o1"])
def test_reasoning_openai_models_do_not_take_temperature(model_id: str) -> None:
    info = lookup("openai", model_id)
    assert not info.supports_temperature
    assert info.supports_reasoning


def test_chat_models_take_temperature() -> None:
    assert lookup("openai", "gpt-4.1").supports_temperature
    assert lookup("openai", "deepseek-chat").supports_temperature
    assert not lookup("openai", "deepseek-reasoner").supports_temperature


def test_catalog_covers_the_common_models() -> None:
    wanted = {
        "claude-sonnet-4-5",
        "claude-opus-4-1",
        "claude-haiku-4-5",
        "claude-3-7-sonnet",
        "claude-3-5-haiku",
        "gpt-4o",
        "gpt-4o-mini",
        "gpt-4.1",
        "gpt-4.1-mini",
        "gpt-4.1-nano",
        "o3",
        "o4-mini",
        "gpt-5",
        "gpt-5-mini",
        "gpt-5-nano",
        "deepseek-chat",
        "deepseek-reasoner",
    }
    assert wanted <= set(known_models())
    for model_id in known_models():
        info = lookup("openai", model_id)
        assert info.context_window >= 100_000 and info.max_output_tokens > 0
        assert info.input_price > 0 and info.output_price >= info.input_price


def test_cost_uses_catalog_prices_per_million_tokens() -> None:
    info = lookup("anthropic", "claude-haiku-4-5")
    usage = UsageChunk(
        input_tokens=1_000_000,
        output_tokens=200_000,
        cache_write_tokens=400_000,
        cache_read_tokens=2_000_000,
    )
    assert info.cost(usage) == pytest.approx(1.0 + 1.0 + 0.5 + 0.2)
