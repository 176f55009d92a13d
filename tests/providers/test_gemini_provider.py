"""The Gemini adapter driven through the real google-genai SDK against a fake server on 127.0.0.1
(`streamGenerateContent?alt=sse`), in Gemini API and Vertex AI modes."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import pytest

from pycline.app.builders.wiring import build_provider
from pycline.app.settings.config import ModelConfig
from pycline.errors import ConfigError
from pycline.errors import ProviderErrorKind as Kind
from pycline.messages import ImageContent, Message
from pycline.providers.catalog import lookup
from pycline.providers.gemini_provider import GeminiProvider, VertexTarget
from tests.fakes import gemini_server as fake
from tests.fakes.gemini_server import FakeGemini, GeminiReply, GeminiUsage
from tests.fakes.server import Stall
from tests.providers.helpers import closed_port, drain

KEY = "AIza-test-0123456789"
TEXT = "Résumé — naïve café ☕, 日本語, 🚀.\n<read_file>\n<path>a.py</path>\n</read_file>\n" * 3

Make = Callable[..., GeminiProvider]


@pytest.fixture
def server() -> Iterator[FakeGemini]:
    with FakeGemini() as srv:
        yield srv


@pytest.fixture
async def make(server: FakeGemini) -> AsyncIterator[Make]:
    made: list[GeminiProvider] = []

    def build(model: str = "gemini-2.5-flash", **kwargs: Any) -> GeminiProvider:
        options: dict[str, Any] = {"api_key": KEY, "base_url": server.base_url, **kwargs}
        made.append(GeminiProvider(model=lookup("gemini", model), **options))
        return made[-1]

    yield build
    for provider in made:
        await provider.aclose()


async def test_text_and_thoughts_stream_and_usage_excludes_cached_tokens(
    server: FakeGemini, make: Make
) -> None:
    server.add(
        GeminiReply(
            text=TEXT,
            thought="Let me think.",
            usage=GeminiUsage(prompt=1_000, candidates=80, cached=600, thoughts=20),
            delta_size=3,
        )
    )
    provider = make()
    outcome = await drain(provider)
    assert outcome.error is None
    assert outcome.text == TEXT and outcome.reasoning == "Let me think."
    (usage,) = outcome.usage
    assert (usage.input_tokens, usage.cache_read_tokens, usage.output_tokens) == (400, 600, 100)
    # gemini-2.5-flash: $0.30 in, $2.50 out, $0.03 cached (per million)
    assert provider.model.cost(usage) == pytest.approx((400 * 0.3 + 100 * 2.5 + 600 * 0.03) / 1e6)


async def test_request_carries_key_system_prompt_roles_images_and_thinking(
    server: FakeGemini, make: Make
) -> None:
    server.add("ok")
    image = ImageContent(media_type="image/png", data_b64="iVBORw0KGgo=")
    history = [
        Message.user("Look"),
        Message.assistant("Looking."),
        Message("user", (image,)),
    ]
    await drain(make("gemini-2.5-pro", thinking_budget=2048), history, system="SYSTEM")
    (request,) = server.generations
    assert request.path == "/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse"
    assert request.header("x-goog-api-key") == KEY
    body = request.body
    assert body["systemInstruction"]["parts"] == [{"text": "SYSTEM"}]
    assert [c["role"] for c in body["contents"]] == ["user", "model", "user"]
    inline = body["contents"][2]["parts"][0]
    assert inline.get("inlineData", inline.get("inline_data"))["data"] == "iVBORw0KGgo="
    config = body["generationConfig"]
    assert config["temperature"] == 0 and config["maxOutputTokens"] == 65_536
    thinking = config["thinkingConfig"]
    assert thinking.get("includeThoughts", thinking.get("include_thoughts")) is True
    assert thinking.get("thinkingBudget", thinking.get("thinking_budget")) == 2048
    assert request.header("x-stainless-retry-count") is None


@pytest.mark.parametrize(
    ("error", "kind", "status"),
    [
        (fake.rate_limited("7s"), Kind.RATE_LIMIT, 429),
        (fake.bad_api_key(), Kind.AUTH, 400),
        (fake.unavailable(), Kind.SERVER, 503),
        (fake.not_found("gemini-9"), Kind.NOT_FOUND, 404),
    ],
)
async def test_http_errors_are_classified_by_status_and_rpc_details(
    server: FakeGemini, make: Make, error: fake.GeminiError, kind: Kind, status: int
) -> None:
    server.add(error)
    outcome = await drain(make())
    assert outcome.error is not None
    assert outcome.error.kind is kind and outcome.error.status == status
    assert KEY not in str(outcome.error)
    assert len(server.generations) == 1  # the SDK made no retry of its own


async def test_retry_delay_from_retry_info_is_honoured(server: FakeGemini, make: Make) -> None:
    server.add(fake.rate_limited("12.5s"))
    outcome = await drain(make())
    assert outcome.error is not None and outcome.error.retry_after == 12.5


async def test_a_dropped_connection_is_a_retryable_cut_off(server: FakeGemini, make: Make) -> None:
    server.add(GeminiReply(text="partial answer", cut_off=True))
    outcome = await drain(make())
    assert outcome.text == "partial answer"
    assert outcome.error is not None and outcome.error.kind is Kind.CUT_OFF
    assert outcome.error.retryable


async def test_an_error_inside_the_stream_is_classified(server: FakeGemini, make: Make) -> None:
    server.add(
        GeminiReply(
            text="so far",
            stream_error={"code": 503, "message": "overloaded", "status": "UNAVAILABLE"},
        )
    )
    outcome = await drain(make())
    assert outcome.text == "so far"
    assert outcome.error is not None and outcome.error.kind is Kind.SERVER


async def test_max_tokens_and_safety_stops_are_reported(server: FakeGemini, make: Make) -> None:
    server.add(
        GeminiReply(text="long", finish_reason="MAX_TOKENS"),
        GeminiReply(text="", finish_reason="SAFETY"),
        GeminiReply(blocked="PROHIBITED_CONTENT"),
    )
    provider = make()
    length, safety, blocked = [await drain(provider) for _ in range(3)]
    assert length.error is not None and length.error.kind is Kind.CUT_OFF
    assert safety.error is not None and safety.error.kind is Kind.OTHER
    assert "SAFETY" in str(safety.error)
    assert blocked.error is not None and "PROHIBITED_CONTENT" in str(blocked.error)


async def test_an_unreachable_server_is_a_connection_error(make: Make) -> None:
    outcome = await drain(make(base_url=f"http://127.0.0.1:{closed_port()}"))
    assert outcome.error is not None and outcome.error.kind is Kind.CONNECTION


async def test_a_stalled_server_times_out(server: FakeGemini, make: Make) -> None:
    server.add(Stall())
    outcome = await drain(make(read_timeout=0.5))
    assert outcome.error is not None and outcome.error.kind is Kind.CONNECTION
    assert "timed out" in str(outcome.error)


async def test_vertex_mode_sends_a_bearer_token_to_the_project_path(server: FakeGemini) -> None:
    from google.oauth2.credentials import Credentials

    server.add(GeminiReply(text="from vertex", usage=GeminiUsage(10, 3)))
    provider = GeminiProvider(
        model=lookup("vertex", "gemini-2.5-pro"),
        vertex=VertexTarget("my-proj", "us-central1", Credentials(token="ya29.token")),
        base_url=server.base_url,
    )
    outcome = await drain(provider)
    await provider.aclose()
    assert outcome.text == "from vertex" and provider.name == "vertex"
    (request,) = server.generations
    assert request.path.startswith(
        "/v1beta1/projects/my-proj/locations/us-central1/publishers/google/models/gemini-2.5-pro"
    )
    assert request.header("authorization") == "Bearer ya29.token"


async def test_gemini_builds_through_the_wiring(server: FakeGemini) -> None:
    server.add("wired")
    provider = build_provider(
        ModelConfig(
            provider="gemini", model="gemini-2.5-flash", api_key=KEY, base_url=server.base_url
        )
    )
    outcome = await drain(provider)
    assert outcome.text == "wired" and provider.name == "gemini"
    with pytest.raises(ConfigError, match="GEMINI_API_KEY"):
        build_provider(ModelConfig(provider="gemini", model="gemini-2.5-flash"))
