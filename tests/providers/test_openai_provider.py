"""The OpenAI adapter driven through the real SDK against a fake server on 127.0.0.1."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable, Iterator
from email.utils import formatdate
from typing import Any

import pytest

from pycline.errors import ProviderErrorKind as Kind
from pycline.messages import ImageContent, Message
from pycline.providers.base import ReasoningChunk, TextChunk, UsageChunk
from pycline.providers.catalog import lookup
from pycline.providers.openai_compat import OpenAIProvider
from tests.fakes import openai_server as fake
from tests.fakes.openai_server import FakeOpenAI, OpenAIReply, OpenAIUsage
from tests.fakes.server import Stall
from tests.providers.helpers import closed_port, drain

KEY = "sk-test-0123456789abcdef"
LONG_TEXT = (
    "Résumé of the plan — naïve café ☕, 日本語のテキスト, emoji 🚀🧪, and plain ASCII.\n"
    "<read_file>\n<path>src/app.py</path>\n</read_file>\n"
) * 5

MakeProvider = Callable[..., OpenAIProvider]


@pytest.fixture
def server() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as srv:
        yield srv


@pytest.fixture
async def make_provider(server: FakeOpenAI) -> AsyncIterator[MakeProvider]:
    made: list[OpenAIProvider] = []

    def make(model: str = "gpt-4o", **kwargs: Any) -> OpenAIProvider:
        provider = OpenAIProvider(
            api_key=KEY, model=lookup("openai", model), base_url=server.base_url, **kwargs
        )
        made.append(provider)
        return provider

    yield make
    for provider in made:
        await provider.aclose()


async def test_streamed_text_is_reassembled_exactly(
    server: FakeOpenAI, make_provider: MakeProvider
) -> None:
    server.add(OpenAIReply(text=LONG_TEXT, delta_size=3))
    outcome = await drain(make_provider())
    assert outcome.error is None
    assert outcome.text == LONG_TEXT
    assert len([c for c in outcome.chunks if isinstance(c, TextChunk)]) > 100
    assert isinstance(outcome.chunks[-1], UsageChunk)


async def test_request_streams_with_usage_and_temperature_zero(
    server: FakeOpenAI, make_provider: MakeProvider
) -> None:
    server.add("ok")
    await drain(make_provider("gpt-4.1"), [Message.user("Hello")], system="SYSTEM PROMPT")
    (request,) = server.completions
    body = request.body
    assert request.header("authorization") == f"Bearer {KEY}"
    assert body["model"] == "gpt-4.1"
    assert body["stream"] is True
    assert body["stream_options"] == {"include_usage": True}
    assert body["temperature"] == 0
    assert body["messages"] == [
        {"role": "system", "content": "SYSTEM PROMPT"},
        {"role": "user", "content": "Hello"},
    ]
    assert request.header("x-stainless-retry-count") == "0"


async def test_a_request_asked_to_sample_warmer_sends_that_temperature(
    server: FakeOpenAI, make_provider: MakeProvider
) -> None:
    server.add("ok")
    server.add("ok")
    provider = make_provider("gpt-4.1")
    await drain(provider, temperature=0.7)
    await drain(provider)
    assert [r.body["temperature"] for r in server.completions] == [0.7, 0]


@pytest.mark.parametrize("model", ["o3", "gpt-5-mini"])
async def test_temperature_is_left_out_for_models_that_reject_it(
    server: FakeOpenAI, make_provider: MakeProvider, model: str
) -> None:
    server.add("ok")
    outcome = await drain(make_provider(model))
    assert outcome.error is None
    assert "temperature" not in server.completions[0].body


async def test_conversation_and_images_are_converted(
    server: FakeOpenAI, make_provider: MakeProvider
) -> None:
    server.add("ok")
    image = ImageContent("image/png", "iVBORw0KGgo=")
    history = [
        Message.user("first"),
        Message.assistant("answer"),
        Message.user("look at this", images=(image,)),
    ]
    await drain(make_provider(), history)
    messages = server.completions[0].body["messages"]
    assert messages[1:] == [
        {"role": "user", "content": "first"},
        {"role": "assistant", "content": "answer"},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "look at this"},
                {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}},
            ],
        },
    ]


@pytest.mark.parametrize("field", ["reasoning_content", "reasoning"])
async def test_reasoning_deltas_become_reasoning_chunks(
    server: FakeOpenAI, make_provider: MakeProvider, field: str
) -> None:
    server.add(OpenAIReply(text="Answer.", reasoning="Let me think… ✓", reasoning_field=field))
    outcome = await drain(make_provider("deepseek-reasoner"))
    assert outcome.reasoning == "Let me think… ✓"
    assert outcome.text == "Answer."
    first_text = next(i for i, c in enumerate(outcome.chunks) if isinstance(c, TextChunk))
    assert all(isinstance(c, ReasoningChunk) for c in outcome.chunks[:first_text])


async def test_usage_subtracts_cached_tokens_from_prompt_tokens(
    server: FakeOpenAI, make_provider: MakeProvider
) -> None:
    server.add(OpenAIReply(text="hi", usage=OpenAIUsage(1_000, 50, cached_tokens=600)))
    provider = make_provider("gpt-4o")
    outcome = await drain(provider)
    assert outcome.usage == [
        UsageChunk(input_tokens=400, output_tokens=50, cache_write_tokens=0, cache_read_tokens=600)
    ]
    expected = (400 * 2.5 + 50 * 10.0 + 600 * 1.25) / 1_000_000
    assert provider.model.cost(outcome.usage[0]) == pytest.approx(expected)


async def test_usage_without_details_counts_all_prompt_tokens_as_input(
    server: FakeOpenAI, make_provider: MakeProvider
) -> None:
    server.add(OpenAIReply(text="hi", usage=OpenAIUsage(321, 9, cached_tokens=None)))
    outcome = await drain(make_provider("some-local-model"))
    assert outcome.usage == [UsageChunk(input_tokens=321, output_tokens=9)]


async def test_deepseek_cache_hits_and_openrouter_cost_are_read(
    server: FakeOpenAI, make_provider: MakeProvider
) -> None:
    usage = OpenAIUsage(
        500, 20, cached_tokens=None, extra={"prompt_cache_hit_tokens": 300, "cost": 0.0042}
    )
    server.add(OpenAIReply(text="hi", usage=usage))
    outcome = await drain(make_provider("deepseek-chat"))
    assert outcome.usage == [
        UsageChunk(input_tokens=200, output_tokens=20, cache_read_tokens=300, cost=0.0042)
    ]


async def test_one_provider_serves_several_requests(
    server: FakeOpenAI, make_provider: MakeProvider
) -> None:
    server.add("one", "two", "three")
    provider = make_provider()
    texts = [(await drain(provider)).text for _ in range(3)]
    assert texts == ["one", "two", "three"]


async def test_bad_key_is_auth_and_the_key_is_never_shown(
    server: FakeOpenAI, make_provider: MakeProvider
) -> None:
    server.add(fake.OpenAIError(401, f"Incorrect API key provided: {KEY}.", code="invalid_api_key"))
    outcome = await drain(make_provider())
    assert outcome.error is not None
    assert outcome.error.kind is Kind.AUTH
    assert outcome.error.status == 401
    assert KEY not in str(outcome.error)
    assert "\n" not in str(outcome.error)


async def test_unknown_model_is_not_found_and_names_the_model(
    server: FakeOpenAI, make_provider: MakeProvider
) -> None:
    server.add(fake.model_not_found("gpt-nope"))
    outcome = await drain(make_provider("gpt-nope"))
    assert outcome.error is not None
    assert outcome.error.kind is Kind.NOT_FOUND
    assert "gpt-nope" in str(outcome.error)
    assert server.base_url in str(outcome.error)


async def test_rate_limit_carries_retry_after_seconds(
    server: FakeOpenAI, make_provider: MakeProvider
) -> None:
    server.add(fake.rate_limited(retry_after="7"))
    outcome = await drain(make_provider())
    assert outcome.error is not None
    assert outcome.error.kind is Kind.RATE_LIMIT
    assert outcome.error.retry_after == 7.0
    assert outcome.error.retryable


async def test_retry_after_as_an_http_date(server: FakeOpenAI, make_provider: MakeProvider) -> None:
    server.add(fake.rate_limited(retry_after=formatdate(time.time() + 120, usegmt=True)))
    outcome = await drain(make_provider())
    assert outcome.error is not None and outcome.error.retry_after is not None
    assert 100 < outcome.error.retry_after <= 121


async def test_insufficient_quota_is_quota_not_rate_limit(
    server: FakeOpenAI, make_provider: MakeProvider
) -> None:
    server.add(fake.out_of_quota())
    outcome = await drain(make_provider())
    assert outcome.error is not None
    assert outcome.error.kind is Kind.QUOTA
    assert not outcome.error.retryable


async def test_context_length_exceeded_is_context_overflow(
    server: FakeOpenAI, make_provider: MakeProvider
) -> None:
    server.add(fake.context_too_long())
    outcome = await drain(make_provider())
    assert outcome.error is not None
    assert outcome.error.kind is Kind.CONTEXT_OVERFLOW


async def test_other_client_errors_are_bad_requests(
    server: FakeOpenAI, make_provider: MakeProvider
) -> None:
    server.add(fake.OpenAIError(400, "Invalid value for 'messages'.", param="messages"))
    outcome = await drain(make_provider())
    assert outcome.error is not None
    assert outcome.error.kind is Kind.BAD_REQUEST
    assert "Invalid value for 'messages'." in str(outcome.error)


async def test_server_error_is_retryable(server: FakeOpenAI, make_provider: MakeProvider) -> None:
    server.add(fake.server_error())
    outcome = await drain(make_provider())
    assert outcome.error is not None
    assert (outcome.error.kind, outcome.error.status) == (Kind.SERVER, 500)
    assert outcome.error.retryable


async def test_error_object_inside_the_stream_fails_after_the_text(
    server: FakeOpenAI, make_provider: MakeProvider
) -> None:
    error = {"message": "Upstream provider failed", "code": 502}
    server.add(OpenAIReply(text="Partial answer", stream_error=error))
    outcome = await drain(make_provider())
    assert outcome.text == "Partial answer"
    assert outcome.error is not None
    assert outcome.error.kind is Kind.SERVER


async def test_dropped_connection_is_cut_off_after_the_partial_text(
    server: FakeOpenAI, make_provider: MakeProvider
) -> None:
    server.add(OpenAIReply(text="I will now edit the fi", cut_off=True))
    outcome = await drain(make_provider())
    assert outcome.text == "I will now edit the fi"
    assert outcome.error is not None
    assert outcome.error.kind is Kind.CUT_OFF


async def test_stream_without_finish_reason_is_cut_off(
    server: FakeOpenAI, make_provider: MakeProvider
) -> None:
    server.add(OpenAIReply(text="Half a reply", finish_reason=None))
    outcome = await drain(make_provider())
    assert outcome.text == "Half a reply"
    assert outcome.error is not None
    assert outcome.error.kind is Kind.CUT_OFF


async def test_length_finish_is_cut_off_after_text_and_usage(
    server: FakeOpenAI, make_provider: MakeProvider
) -> None:
    server.add(OpenAIReply(text="Truncated by max tok", finish_reason="length"))
    outcome = await drain(make_provider())
    assert outcome.text == "Truncated by max tok"
    assert len(outcome.usage) == 1
    assert outcome.error is not None
    assert outcome.error.kind is Kind.CUT_OFF


async def test_unreachable_base_url_is_a_quick_connection_error() -> None:
    base_url = f"http://127.0.0.1:{closed_port()}/v1"
    provider = OpenAIProvider(api_key=KEY, model=lookup("openai", "gpt-4o"), base_url=base_url)
    started = time.monotonic()
    outcome = await drain(provider)
    await provider.aclose()
    assert time.monotonic() - started < 5
    assert outcome.error is not None
    assert outcome.error.kind is Kind.CONNECTION
    assert str(outcome.error).startswith(f"Cannot reach {base_url} ")


async def test_server_that_never_answers_times_out_as_connection_error(
    server: FakeOpenAI, make_provider: MakeProvider
) -> None:
    server.add(Stall())
    outcome = await drain(make_provider(read_timeout=0.3))
    assert outcome.error is not None
    assert outcome.error.kind is Kind.CONNECTION
    assert "timed out" in str(outcome.error)
