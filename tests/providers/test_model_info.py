"""Facts for models the catalogue does not know: asked of the server, else defaults, then the
user's `modelInfo` setting over everything."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest

from pycline.app.builders.wiring import build_provider
from pycline.app.settings.config import ModelConfig
from pycline.errors import ConfigError
from pycline.providers import model_probe
from pycline.providers.model_info import LOCAL_DEFAULT_WINDOW, resolve_model
from tests.fakes.server import FakeHTTPServer, Planned, RecordedRequest
from tests.providers.helpers import closed_port


@pytest.fixture(autouse=True)
def fresh_cache() -> Iterator[None]:
    model_probe.clear_cache()
    yield
    model_probe.clear_cache()


def ollama(request: RecordedRequest) -> Planned:
    if request.path == "/api/show" and request.body == {"model": "qwen3-coder:30b"}:
        return Planned(
            json_body={
                "details": {"family": "qwen3moe"},
                "model_info": {
                    "general.architecture": "qwen3moe",
                    "qwen3moe.context_length": 262_144,
                },
                "capabilities": ["completion", "tools", "thinking"],
            }
        )
    return Planned(status=404, json_body={"error": "model not found"})


OPENROUTER_MODELS: dict[str, Any] = {
    "data": [
        {
            "id": "other/model",
            "context_length": 8_000,
            "pricing": {"prompt": "0", "completion": "0"},
        },
        {
            "id": "moonshotai/kimi-k2",
            "context_length": 131_072,
            "architecture": {"input_modalities": ["text", "image"]},
            "pricing": {
                "prompt": "0.0000006",
                "completion": "0.0000025",
                "input_cache_read": "0.00000015",
            },
            "top_provider": {"context_length": 131_072, "max_completion_tokens": 16_384},
            "supported_parameters": ["temperature", "reasoning"],
        },
    ]
}


def models_list(request: RecordedRequest) -> Planned:
    if request.method == "GET" and request.path == "/v1/models":
        return Planned(json_body=OPENROUTER_MODELS)
    return Planned(status=404, json_body={})


def test_ollama_reports_the_context_length_and_capabilities() -> None:
    with FakeHTTPServer(ollama) as srv:
        info = resolve_model(
            "ollama", "qwen3-coder:30b", probe="ollama", base_url=f"{srv.origin}/v1", local=True
        )
    assert info.context_window == 262_144
    assert info.supports_reasoning and not info.supports_images


def test_an_openrouter_style_models_list_gives_window_output_and_prices() -> None:
    with FakeHTTPServer(models_list) as srv:
        info = resolve_model(
            "openrouter", "moonshotai/kimi-k2", probe="models_list", base_url=f"{srv.origin}/v1"
        )
        assert srv.requests[0].path == "/v1/models"
    assert (info.context_window, info.max_output_tokens) == (131_072, 16_384)
    assert info.input_price == pytest.approx(0.6)
    assert info.output_price == pytest.approx(2.5)
    assert info.cache_read_price == pytest.approx(0.15)
    assert info.supports_images and info.supports_reasoning and info.supports_prompt_cache


def test_vllm_and_llamacpp_fields_are_understood() -> None:
    listing = {
        "data": [
            {"id": "Qwen/Qwen3-8B", "max_model_len": 40_960},
            {"id": "gguf-model", "meta": {"n_ctx_train": 65_536}},
        ]
    }
    with FakeHTTPServer(lambda r: Planned(json_body=listing)) as srv:
        base = f"{srv.origin}/v1"
        vllm = resolve_model("vllm", "Qwen/Qwen3-8B", probe="models_list", base_url=base)
        llama = resolve_model("llamacpp", "gguf-model", probe="models_list", base_url=base)
    assert vllm.context_window == 40_960
    assert llama.context_window == 65_536


def test_lmstudio_reports_the_loaded_context_length() -> None:
    def lmstudio(request: RecordedRequest) -> Planned:
        assert request.path == "/api/v0/models/qwen2.5-vl-7b"
        return Planned(
            json_body={
                "type": "vlm",
                "max_context_length": 128_000,
                "loaded_context_length": 16_384,
            }
        )

    with FakeHTTPServer(lmstudio) as srv:
        info = resolve_model(
            "lmstudio", "qwen2.5-vl-7b", probe="lmstudio", base_url=f"{srv.origin}/v1", local=True
        )
    assert info.context_window == 16_384 and info.supports_images


def test_an_unreachable_local_server_gives_conservative_defaults_quickly() -> None:
    started = time.monotonic()
    info = resolve_model(
        "ollama", "llama3.1", probe="ollama", base_url=f"http://127.0.0.1:{closed_port()}/v1",
        local=True,
    )  # fmt: skip
    assert time.monotonic() - started < 5
    assert info.context_window == LOCAL_DEFAULT_WINDOW


def test_a_server_that_never_answers_is_given_up_after_the_timeout() -> None:
    with FakeHTTPServer(lambda r: Planned(stall=True)) as srv:
        started = time.monotonic()
        facts = model_probe.probe("models_list", f"{srv.origin}/v1", "m", timeout=0.3)
        elapsed = time.monotonic() - started
    assert facts == {} and elapsed < 5  # the server never answers


def test_known_models_are_not_asked_about() -> None:
    with FakeHTTPServer(models_list) as srv:
        info = resolve_model(
            "openrouter", "openai/gpt-4o", probe="models_list", base_url=srv.origin
        )
        assert srv.requests == []
    assert info.context_window == 128_000


def test_user_model_info_wins_and_skips_the_question() -> None:
    with FakeHTTPServer(ollama) as srv:
        info = resolve_model(
            "ollama",
            "qwen3-coder:30b",
            probe="ollama",
            base_url=f"{srv.origin}/v1",
            local=True,
            overrides={"contextWindow": 65_536, "maxTokens": 4_096, "inputPrice": 0.5},
        )
        assert srv.requests == []
    assert (info.context_window, info.max_output_tokens, info.input_price) == (65_536, 4_096, 0.5)


def test_user_model_info_overrides_a_catalogued_model() -> None:
    info = resolve_model(
        "anthropic", "claude-sonnet-4-5", overrides={"inputPrice": 1.0, "cacheReadsPrice": 0.01}
    )
    assert info.input_price == 1.0 and info.cache_read_price == 0.01
    assert info.output_price == 15.0  # untouched fields keep the catalogue's value


def test_an_unknown_model_info_key_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="contextWindo"):
        resolve_model("openai", "gpt-4o", overrides={"contextWindo": 1})


def test_the_wiring_asks_ollama_and_applies_model_info_from_the_config() -> None:
    with FakeHTTPServer(ollama) as srv:
        asked = build_provider(
            ModelConfig(provider="ollama", model="qwen3-coder:30b", base_url=f"{srv.origin}/v1")
        )
        told = build_provider(
            ModelConfig(
                provider="ollama",
                model="other",
                base_url=f"{srv.origin}/v1",
                model_info={"contextWindow": 100_000},
            )
        )
    assert asked.model.context_window == 262_144
    assert told.model.context_window == 100_000


def test_model_info_from_the_settings_file_reaches_the_provider(isolated_home: Any) -> None:
    import json

    from pycline.app.settings.config import resolve, settings_path

    path = settings_path(isolated_home)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        json.dumps(
            {
                "provider": "ollama",
                "model": "my-model",
                "baseUrl": f"http://127.0.0.1:{closed_port()}/v1",
                "reasoningEffort": "high",
                "thinkingBudget": 4096,
                "modelInfo": {"contextWindow": 50_000, "inputPrice": 2, "supportsImages": True},
            }
        ),
        encoding="utf-8",
    )
    config = resolve(ModelConfig(), isolated_home)
    assert config.reasoning_effort == "high" and config.thinking_budget == 4096
    provider = build_provider(config)
    assert provider.model.context_window == 50_000
    assert provider.model.input_price == 2 and provider.model.supports_images
