"""Anthropic extended thinking: the budget goes into the request, thinking streams as reasoning."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from pycline.app.builders.wiring import build_provider
from pycline.app.settings.config import ModelConfig
from pycline.providers.anthropic_provider import AnthropicProvider
from pycline.providers.catalog import lookup
from tests.fakes.anthropic_server import AnthropicReply, FakeAnthropic
from tests.providers.helpers import drain


@pytest.fixture
def server() -> Iterator[FakeAnthropic]:
    with FakeAnthropic() as srv:
        yield srv


async def test_thinking_budget_is_sent_and_thinking_streams_as_reasoning(
    server: FakeAnthropic,
) -> None:
    server.add(AnthropicReply(text="Done.", thinking="First, the file…", delta_size=2))
    provider = build_provider(
        ModelConfig(
            provider="anthropic",
            model="claude-sonnet-4-6",
            api_key="sk-ant",
            base_url=server.base_url,
            thinking_budget=8_000,
        )
    )
    assert isinstance(provider, AnthropicProvider)
    outcome = await drain(provider)
    await provider.aclose()
    assert outcome.reasoning == "First, the file…" and outcome.text == "Done."
    body = server.messages[0].body
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 8_000}
    assert body["max_tokens"] > 8_000
    assert "temperature" not in body


@pytest.mark.parametrize(
    ("model", "budget", "sent"),
    [
        ("claude-3-5-haiku", 4_000, None),  # does not think: nothing sent
        ("claude-3-7-sonnet", 50_000, 8_191),  # kept below max_tokens (8,192)
        ("claude-sonnet-4-6", 100, 1_024),  # raised to Anthropic's minimum
        ("claude-sonnet-4-6", None, None),  # not asked for
    ],
)
async def test_thinking_budget_respects_the_model(
    server: FakeAnthropic, model: str, budget: int | None, sent: int | None
) -> None:
    server.add("ok")
    provider = AnthropicProvider(
        api_key="k", model=lookup("anthropic", model), base_url=server.base_url,
        thinking_budget=budget,
    )  # fmt: skip
    await drain(provider)
    await provider.aclose()
    body = server.messages[0].body
    if sent is None:
        assert "thinking" not in body
    else:
        assert body["thinking"]["budget_tokens"] == sent
