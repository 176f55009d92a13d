"""OpenAI-compatible presets, built through the app's wiring and streamed from a fake server."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from pycline.app.builders.wiring import build_provider
from pycline.app.settings.config import KEY_ENV, ModelConfig
from pycline.app.settings.settings_model import PROVIDERS
from pycline.errors import ConfigError
from pycline.providers import presets
from pycline.providers.base import Provider
from pycline.providers.openai_compat import OpenAIProvider
from tests.fakes.openai_server import FakeOpenAI, OpenAIReply, OpenAIUsage
from tests.providers.helpers import drain

Build = Callable[..., Provider]


@pytest.fixture
async def build() -> AsyncIterator[Build]:
    made: list[Provider] = []

    def make(provider: str, **kwargs: Any) -> Provider:
        made.append(build_provider(ModelConfig(provider=provider, **kwargs)))
        return made[-1]

    yield make
    for provider in made:
        if isinstance(provider, OpenAIProvider):
            await provider.aclose()


def test_every_preset_is_a_known_provider_with_its_key_variable() -> None:
    expected = {
        "openrouter": "OPENROUTER_API_KEY",
        "deepseek": "DEEPSEEK_API_KEY",
        "groq": "GROQ_API_KEY",
        "together": "TOGETHER_API_KEY",
        "xai": "XAI_API_KEY",
        "mistral": "MISTRAL_API_KEY",
    }
    for name, env in expected.items():
        assert name in PROVIDERS
        assert KEY_ENV[name] == env
    local = {
        "ollama": "http://localhost:11434/v1",
        "lmstudio": "http://localhost:1234/v1",
        "vllm": "http://localhost:8000/v1",
        "llamacpp": "http://localhost:8080/v1",
    }
    for name, url in local.items():
        found = presets.preset(name)
        assert found is not None and found.base_url == url and found.local
        assert name in PROVIDERS and name not in KEY_ENV


def test_a_hosted_preset_without_a_key_is_refused_with_its_variable_named() -> None:
    with pytest.raises(ConfigError, match="OPENROUTER_API_KEY"):
        build_provider(ModelConfig(provider="openrouter", model="openai/gpt-4o"))


def test_a_local_preset_needs_a_model_name() -> None:
    with pytest.raises(ConfigError, match="--model"):
        build_provider(ModelConfig(provider="ollama"))


async def test_openrouter_sends_its_headers_asks_for_cost_and_reports_it(build: Build) -> None:
    reply = OpenAIReply(
        text="Hi",
        reasoning="thinking it over",
        reasoning_field="reasoning",
        usage=OpenAIUsage(1_000, 50, cached_tokens=400, extra={"cost": 0.0123}),
    )
    with FakeOpenAI([reply]) as srv:
        provider = build(
            "openrouter",
            model="anthropic/claude-sonnet-4.5",
            base_url=srv.base_url,
            api_key="sk-or-test",
            reasoning_effort="high",
        )
        outcome = await drain(provider)
    assert provider.name == "openrouter"
    assert outcome.text == "Hi" and outcome.reasoning == "thinking it over"
    (usage,) = outcome.usage
    assert (usage.input_tokens, usage.cache_read_tokens, usage.output_tokens) == (600, 400, 50)
    assert provider.model.cost(usage) == pytest.approx(0.0123)  # the host's figure wins
    (request,) = srv.completions
    assert request.header("http-referer") and request.header("x-title") == "pycline"
    assert request.header("authorization") == "Bearer sk-or-test"
    assert request.body["usage"] == {"include": True}
    # OpenRouter takes effort as an object, not OpenAI's top-level field.
    assert request.body["reasoning"] == {"effort": "high"}
    assert "reasoning_effort" not in request.body


async def test_deepseek_streams_reasoning_content_and_counts_cache_hits(build: Build) -> None:
    reply = OpenAIReply(
        text="Answer",
        reasoning="step by step",
        usage=OpenAIUsage(900, 30, extra={"prompt_cache_hit_tokens": 500}),
    )
    with FakeOpenAI([reply]) as srv:
        provider = build(
            "deepseek", model="deepseek-reasoner", base_url=srv.base_url, api_key="sk-ds"
        )
        outcome = await drain(provider)
    assert outcome.reasoning == "step by step"
    (usage,) = outcome.usage
    assert (usage.input_tokens, usage.cache_read_tokens) == (400, 500)
    body = srv.completions[0].body
    assert "temperature" not in body  # the reasoner rejects it
    assert body["stream_options"] == {"include_usage": True}


async def test_mistral_gets_no_stream_options(build: Build) -> None:
    with FakeOpenAI(["ok"]) as srv:
        await drain(build("mistral", model="codestral-latest", base_url=srv.base_url, api_key="m"))
    assert "stream_options" not in srv.completions[0].body


async def test_openai_reasoning_effort_goes_only_to_reasoning_models(build: Build) -> None:
    with FakeOpenAI(["a", "b"]) as srv:
        await drain(build("openai", model="o4-mini", api_key="k", base_url=srv.base_url,
                          reasoning_effort="low"))  # fmt: skip
        await drain(build("openai", model="gpt-4o", api_key="k", base_url=srv.base_url,
                          reasoning_effort="low"))  # fmt: skip
    first, second = (r.body for r in srv.completions)
    assert first["reasoning_effort"] == "low" and "temperature" not in first
    assert "reasoning_effort" not in second and second["temperature"] == 0


def test_groq_usage_is_read_from_x_groq() -> None:
    from openai.types.chat import ChatCompletionChunk

    from pycline.providers.openai_compat import _StreamState

    # Groq's last chunk: no top-level usage, the counts in its own `x_groq` object.
    chunk = ChatCompletionChunk.model_validate(
        {
            "id": "c",
            "object": "chat.completion.chunk",
            "created": 0,
            "model": "llama-3.3-70b-versatile",
            "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
            "x_groq": {"id": "req", "usage": {"prompt_tokens": 120, "completion_tokens": 7}},
        }
    )
    state = _StreamState()
    list(state.feed(chunk))
    assert state.usage is not None
    assert (state.usage.input_tokens, state.usage.output_tokens) == (120, 7)


async def test_ollama_runs_without_a_key_at_its_local_url(build: Build) -> None:
    with FakeOpenAI(["local reply"]) as srv:
        provider = build("ollama", model="qwen3-coder:30b", base_url=srv.base_url)
        outcome = await drain(provider)
    assert outcome.text == "local reply"
    assert provider.name == "ollama"
    assert srv.completions[0].header("authorization") == "Bearer not-needed"


def test_pycline_run_with_a_preset_and_gemini_end_to_end(
    isolated_home: Path, workspace: Path
) -> None:
    from tests.cli.test_headless import run_cli
    from tests.fakes.gemini_server import FakeGemini

    done = "<attempt_completion>\n<result>ok</result>\n</attempt_completion>"
    with FakeOpenAI(
        [OpenAIReply(text=done, usage=OpenAIUsage(2_000, 20, extra={"cost": 0.5}))]
    ) as srv:
        proc = run_cli(
            ["run", "--provider", "openrouter", "--base-url", srv.base_url, "--api-key", "sk-or",
             "--model", "openai/gpt-4o", "say ok"],
            home=isolated_home,
            cwd=workspace,
        )  # fmt: skip
        assert srv.completions[0].header("x-title") == "pycline"
    assert proc.returncode == 0, proc.stderr
    assert "$0.5000" in proc.stdout  # OpenRouter's reported cost is shown
    with FakeGemini([done]) as gem:
        proc = run_cli(
            ["run", "--provider", "gemini", "--base-url", gem.base_url, "say ok"],
            home=isolated_home,
            cwd=workspace,
            env={"GEMINI_API_KEY": "AIza-env-key"},
        )
        assert gem.generations[0].header("x-goog-api-key") == "AIza-env-key"
        assert "gemini-2.5-pro" in gem.generations[0].path  # the default Gemini model
    assert proc.returncode == 0, proc.stderr
