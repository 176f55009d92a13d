"""The Anthropic adapter driven through the real SDK against a fake server on 127.0.0.1."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import replace
from typing import Any

import pytest

from pycline.errors import ProviderErrorKind as Kind
from pycline.messages import ImageContent, Message, TextContent
from pycline.providers.anthropic_provider import AnthropicProvider
from pycline.providers.base import ReasoningChunk, TextChunk, UsageChunk
from pycline.providers.catalog import lookup
from tests.fakes import anthropic_server as fake
from tests.fakes.anthropic_server import AnthropicReply, AnthropicUsage, FakeAnthropic
from tests.fakes.server import Stall
from tests.providers.helpers import closed_port, drain

KEY = "sk-ant-test-0123456789abcdef"
MODEL = "claude-haiku-4-5"
LONG_TEXT = (
    "Résumé — naïve café ☕, 日本語のテキスト, emoji 🚀🧪.\n"
    "<replace_in_file>\n<path>a.py</path>\n<diff>\n------- SEARCH\nx\n=======\ny\n"
    "+++++++ REPLACE\n</diff>\n</replace_in_file>\n"
) * 4

MakeProvider = Callable[..., AnthropicProvider]


@pytest.fixture
def server() -> Iterator[FakeAnthropic]:
    with FakeAnthropic() as srv:
        yield srv


@pytest.fixture
async def make_provider(server: FakeAnthropic) -> AsyncIterator[MakeProvider]:
    made: list[AnthropicProvider] = []

    def make(model: str = MODEL, **kwargs: Any) -> AnthropicProvider:
        info = kwargs.pop("info", None) or lookup("anthropic", model)
        provider = AnthropicProvider(api_key=KEY, model=info, base_url=server.base_url, **kwargs)
        made.append(provider)
        return provider

    yield make
    for provider in made:
        await provider.aclose()


def cache_marks(blocks: list[dict[str, Any]]) -> list[bool]:
    return ["cache_control" in block for block in blocks]


async def test_streamed_text_is_reassembled_exactly(
    server: FakeAnthropic, make_provider: MakeProvider
) -> None:
    server.add(AnthropicReply(text=LONG_TEXT, delta_size=3))
    outcome = await drain(make_provider())
    assert outcome.error is None
    assert outcome.text == LONG_TEXT
    assert len([c for c in outcome.chunks if isinstance(c, TextChunk)]) > 100
    assert isinstance(outcome.chunks[-1], UsageChunk)


async def test_thinking_deltas_become_reasoning_chunks_before_the_text(
    server: FakeAnthropic, make_provider: MakeProvider
) -> None:
    server.add(AnthropicReply(text="Done.", thinking="First, read the file… then edit ✓"))
    outcome = await drain(make_provider())
    assert outcome.reasoning == "First, read the file… then edit ✓"
    assert outcome.text == "Done."
    first_text = next(i for i, c in enumerate(outcome.chunks) if isinstance(c, TextChunk))
    assert all(isinstance(c, ReasoningChunk) for c in outcome.chunks[:first_text])


async def test_usage_keeps_cache_tokens_apart_from_input(
    server: FakeAnthropic, make_provider: MakeProvider
) -> None:
    usage = AnthropicUsage(
        input_tokens=120,
        output_tokens=42,
        cache_creation_input_tokens=2_000,
        cache_read_input_tokens=5_000,
    )
    server.add(AnthropicReply(text="hi", usage=usage))
    provider = make_provider()
    outcome = await drain(provider)
    assert outcome.usage == [
        UsageChunk(
            input_tokens=120, output_tokens=42, cache_write_tokens=2_000, cache_read_tokens=5_000
        )
    ]
    expected = (120 * 1.0 + 42 * 5.0 + 2_000 * 1.25 + 5_000 * 0.1) / 1_000_000
    assert provider.model.cost(outcome.usage[0]) == pytest.approx(expected)


async def test_request_has_model_limits_and_cache_breakpoints(
    server: FakeAnthropic, make_provider: MakeProvider
) -> None:
    server.add("ok")
    history = [
        Message.user("task"),
        Message.assistant("step 1"),
        Message.user("result 1"),
        Message.assistant("step 2"),
        Message.user("result 2"),
    ]
    await drain(make_provider(), history, system="SYSTEM PROMPT")
    (request,) = server.messages
    body = request.body
    assert KEY in (request.header("authorization") or "") + (request.header("x-api-key") or "")
    assert body["model"] == MODEL
    assert body["stream"] is True
    assert body["max_tokens"] == lookup("anthropic", MODEL).max_output_tokens
    assert body["system"] == [
        {"type": "text", "text": "SYSTEM PROMPT", "cache_control": {"type": "ephemeral"}}
    ]
    assert [m["role"] for m in body["messages"]] == ["user", "assistant"] * 2 + ["user"]
    marks = [cache_marks(m["content"]) for m in body["messages"]]
    # The task (kept across the context's steps), and the last two turns (this request reads
    # what the previous one cached, the next request reads this one).
    assert marks == [[True], [False], [True], [False], [True]]
    assert body["messages"][4]["content"][0]["cache_control"] == {"type": "ephemeral"}


async def test_models_without_prompt_cache_get_no_breakpoints(
    server: FakeAnthropic, make_provider: MakeProvider
) -> None:
    server.add("ok")
    info = replace(lookup("anthropic", MODEL), supports_prompt_cache=False)
    await drain(make_provider(info=info), [Message.user("a"), Message.user("b")])
    body = server.messages[0].body
    assert "cache_control" not in body["system"][0]
    assert all(not any(cache_marks(m["content"])) for m in body["messages"])


async def test_images_become_base64_blocks_and_the_breakpoint_goes_on_the_last_block(
    server: FakeAnthropic, make_provider: MakeProvider
) -> None:
    server.add("ok")
    image = ImageContent("image/jpeg", "/9j/4AAQSkZJRg==")
    await drain(make_provider(), [Message.user("what is this?", images=(image,))])
    (message,) = server.messages[0].body["messages"]
    assert message["content"] == [
        {"type": "text", "text": "what is this?"},
        {
            "type": "image",
            "source": {"type": "base64", "media_type": "image/jpeg", "data": "/9j/4AAQSkZJRg=="},
            "cache_control": {"type": "ephemeral"},
        },
    ]


async def test_empty_turns_are_sent_with_a_placeholder(
    server: FakeAnthropic, make_provider: MakeProvider
) -> None:
    server.add("ok")
    await drain(make_provider(), [Message("user", (TextContent(""),))])
    (message,) = server.messages[0].body["messages"]
    assert message["content"][0]["text"].strip()


async def test_bad_key_is_auth_and_the_key_is_never_shown(
    server: FakeAnthropic, make_provider: MakeProvider
) -> None:
    server.add(fake.AnthropicError(401, "authentication_error", f"invalid x-api-key {KEY}"))
    outcome = await drain(make_provider())
    assert outcome.error is not None
    assert (outcome.error.kind, outcome.error.status) == (Kind.AUTH, 401)
    assert KEY not in str(outcome.error)


async def test_unknown_model_is_not_found_and_names_the_model(
    server: FakeAnthropic, make_provider: MakeProvider
) -> None:
    server.add(fake.model_not_found("claude-nope"))
    outcome = await drain(make_provider("claude-nope"))
    assert outcome.error is not None
    assert outcome.error.kind is Kind.NOT_FOUND
    assert "claude-nope" in str(outcome.error)


async def test_rate_limit_carries_retry_after(
    server: FakeAnthropic, make_provider: MakeProvider
) -> None:
    server.add(fake.rate_limited(retry_after="12"))
    outcome = await drain(make_provider())
    assert outcome.error is not None
    assert outcome.error.kind is Kind.RATE_LIMIT
    assert outcome.error.retry_after == 12.0


@pytest.mark.parametrize(
    ("error", "status"), [(fake.overloaded(), 529), (fake.server_error(), 500)]
)
async def test_overloaded_and_server_errors_are_server_errors(
    server: FakeAnthropic, make_provider: MakeProvider, error: fake.AnthropicError, status: int
) -> None:
    server.add(error)
    outcome = await drain(make_provider())
    assert outcome.error is not None
    assert (outcome.error.kind, outcome.error.status) == (Kind.SERVER, status)
    assert outcome.error.retryable


async def test_prompt_too_long_without_a_structured_marker_is_a_bad_request(
    server: FakeAnthropic, make_provider: MakeProvider
) -> None:
    server.add(fake.prompt_too_long())
    outcome = await drain(make_provider())
    assert outcome.error is not None
    assert outcome.error.kind is Kind.BAD_REQUEST
    assert "prompt is too long" in str(outcome.error)


async def test_prompt_too_long_with_a_structured_code_is_context_overflow(
    server: FakeAnthropic, make_provider: MakeProvider
) -> None:
    server.add(
        fake.AnthropicError(400, "invalid_request_error", "too long", error_code="prompt_too_long")
    )
    outcome = await drain(make_provider())
    assert outcome.error is not None
    assert outcome.error.kind is Kind.CONTEXT_OVERFLOW


async def test_error_event_mid_stream_is_a_server_error_after_the_text(
    server: FakeAnthropic, make_provider: MakeProvider
) -> None:
    server.add(AnthropicReply(text="Working on i", stream_error=fake.OVERLOADED))
    outcome = await drain(make_provider())
    assert outcome.text == "Working on i"
    assert outcome.error is not None
    assert outcome.error.kind is Kind.SERVER
    assert outcome.error.status is None


async def test_dropped_connection_is_cut_off_after_the_partial_text(
    server: FakeAnthropic, make_provider: MakeProvider
) -> None:
    server.add(AnthropicReply(text="I will now edit the fi", cut_off=True))
    outcome = await drain(make_provider())
    assert outcome.text == "I will now edit the fi"
    assert outcome.error is not None
    assert outcome.error.kind is Kind.CUT_OFF


async def test_stream_ending_without_message_stop_is_cut_off(
    server: FakeAnthropic, make_provider: MakeProvider
) -> None:
    server.add(AnthropicReply(text="Half a reply", end_early=True))
    outcome = await drain(make_provider())
    assert outcome.text == "Half a reply"
    assert outcome.error is not None
    assert outcome.error.kind is Kind.CUT_OFF


async def test_max_tokens_stop_is_cut_off_after_text_and_usage(
    server: FakeAnthropic, make_provider: MakeProvider
) -> None:
    server.add(AnthropicReply(text="Truncated", stop_reason="max_tokens"))
    outcome = await drain(make_provider())
    assert outcome.text == "Truncated"
    assert len(outcome.usage) == 1
    assert outcome.error is not None
    assert outcome.error.kind is Kind.CUT_OFF


async def test_context_window_stop_is_context_overflow(
    server: FakeAnthropic, make_provider: MakeProvider
) -> None:
    server.add(AnthropicReply(text="Trunc", stop_reason="model_context_window_exceeded"))
    outcome = await drain(make_provider())
    assert outcome.text == "Trunc"
    assert outcome.error is not None
    assert outcome.error.kind is Kind.CONTEXT_OVERFLOW


async def test_unreachable_base_url_is_a_quick_connection_error() -> None:
    base_url = f"http://127.0.0.1:{closed_port()}"
    provider = AnthropicProvider(api_key=KEY, model=lookup("anthropic", MODEL), base_url=base_url)
    started = time.monotonic()
    outcome = await drain(provider)
    await provider.aclose()
    assert time.monotonic() - started < 5
    assert outcome.error is not None
    assert outcome.error.kind is Kind.CONNECTION
    assert str(outcome.error).startswith(f"Cannot reach {base_url} ")


async def test_server_that_never_answers_times_out_as_connection_error(
    server: FakeAnthropic, make_provider: MakeProvider
) -> None:
    server.add(Stall())
    outcome = await drain(make_provider(read_timeout=0.3))
    assert outcome.error is not None
    assert outcome.error.kind is Kind.CONNECTION
    assert "timed out" in str(outcome.error)
