"""Claude on Amazon Bedrock (AWS event-stream framing, SigV4) and on Google Vertex AI, through
Anthropic's official cloud clients against fake servers on 127.0.0.1."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import pytest

from pycline.app.builders.wiring import build_provider
from pycline.app.settings.config import ModelConfig
from pycline.errors import ConfigError
from pycline.errors import ProviderErrorKind as Kind
from pycline.providers.anthropic_provider import AnthropicProvider
from pycline.providers.catalog import lookup
from pycline.providers.cloud import bedrock_provider, vertex_provider
from pycline.providers.gemini_provider import GeminiProvider
from tests.fakes import bedrock_server as fake
from tests.fakes.anthropic_server import AnthropicReply, AnthropicUsage, FakeAnthropic
from tests.fakes.bedrock_server import FakeBedrock
from tests.fakes.gemini_server import FakeGemini
from tests.providers.helpers import drain

MODEL = "us.anthropic.claude-sonnet-4-5-20250929-v1:0"
TEXT = "Grüße — 日本語 🚀\n<list_files>\n<path>.</path>\n</list_files>\n" * 4

MakeBedrock = Callable[..., AnthropicProvider]


@pytest.fixture
def bedrock() -> Iterator[FakeBedrock]:
    with FakeBedrock() as srv:
        yield srv


@pytest.fixture
async def make_bedrock(bedrock: FakeBedrock) -> AsyncIterator[MakeBedrock]:
    made: list[AnthropicProvider] = []

    def make(**kwargs: Any) -> AnthropicProvider:
        options: dict[str, Any] = {
            "model": lookup("bedrock", MODEL),
            "region": "us-east-1",
            "base_url": bedrock.base_url,
            "access_key": "AKIAFAKEFAKEFAKE",
            "secret_key": "fake-secret",
            **kwargs,
        }
        made.append(bedrock_provider(**options))
        return made[-1]

    yield make
    for provider in made:
        await provider.aclose()


async def test_bedrock_streams_text_thinking_and_usage_over_the_event_stream(
    bedrock: FakeBedrock, make_bedrock: MakeBedrock
) -> None:
    bedrock.add(
        AnthropicReply(
            text=TEXT,
            thinking="Considering.",
            usage=AnthropicUsage(
                300, 40, cache_creation_input_tokens=100, cache_read_input_tokens=900
            ),
            delta_size=3,
        )
    )
    provider = make_bedrock(thinking_budget=2_048)
    outcome = await drain(provider, system="SYS")
    assert outcome.error is None
    assert outcome.text == TEXT and outcome.reasoning == "Considering."
    (usage,) = outcome.usage
    assert (usage.input_tokens, usage.cache_write_tokens, usage.cache_read_tokens) == (
        300,
        100,
        900,
    )
    assert usage.output_tokens == 40
    # Sonnet 4.5: $3 in, $15 out, $3.75 cache write, $0.30 cache read per million.
    expected = (300 * 3 + 40 * 15 + 100 * 3.75 + 900 * 0.3) / 1e6
    assert provider.model.cost(usage) == pytest.approx(expected)
    (request,) = bedrock.invocations
    assert request.path == f"/model/{MODEL}/invoke-with-response-stream"
    assert (request.header("authorization") or "").startswith(
        "AWS4-HMAC-SHA256 Credential=AKIAFAKEFAKEFAKE/"
    )
    assert "/us-east-1/bedrock/aws4_request" in (request.header("authorization") or "")
    body = request.body
    assert "model" not in body and "stream" not in body
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 2_048}
    assert body["system"][0]["cache_control"] == {"type": "ephemeral"}


@pytest.mark.parametrize(
    ("error", "kind", "retryable"),
    [
        (fake.throttled(), Kind.RATE_LIMIT, True),
        (fake.access_denied(), Kind.AUTH, False),
        (fake.input_too_long(), Kind.BAD_REQUEST, False),
        (fake.service_unavailable(), Kind.SERVER, True),
    ],
)
async def test_bedrock_http_errors_are_classified_by_status_and_type(
    bedrock: FakeBedrock,
    make_bedrock: MakeBedrock,
    error: fake.BedrockError,
    kind: Kind,
    retryable: bool,
) -> None:
    bedrock.add(error)
    outcome = await drain(make_bedrock())
    assert outcome.error is not None
    assert outcome.error.kind is kind and outcome.error.retryable is retryable
    assert error.message in str(outcome.error)
    assert len(bedrock.invocations) == 1  # the SDK made no retry of its own


async def test_bedrock_exception_frame_mid_stream_is_classified(
    bedrock: FakeBedrock, make_bedrock: MakeBedrock
) -> None:
    bedrock.add(
        AnthropicReply(
            text="partial", stream_error={"type": "throttlingException", "message": "slow down"}
        )
    )
    outcome = await drain(make_bedrock())
    assert outcome.text == "partial"
    assert outcome.error is not None and outcome.error.kind is Kind.RATE_LIMIT


async def test_bedrock_dropped_connection_is_a_cut_off(
    bedrock: FakeBedrock, make_bedrock: MakeBedrock
) -> None:
    bedrock.add(AnthropicReply(text="half a reply", cut_off=True))
    outcome = await drain(make_bedrock())
    assert outcome.text == "half a reply"
    assert outcome.error is not None and outcome.error.kind is Kind.CUT_OFF


async def test_bedrock_api_key_is_sent_as_a_bearer_token(
    bedrock: FakeBedrock, make_bedrock: MakeBedrock
) -> None:
    bedrock.add("ok")
    outcome = await drain(make_bedrock(api_key="bedrock-api-key", access_key=None, secret_key=None))
    assert outcome.text == "ok"
    assert bedrock.invocations[0].header("authorization") == "Bearer bedrock-api-key"


def test_bedrock_without_credentials_is_refused_before_any_request(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Any
) -> None:
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_PROFILE", "AWS_SESSION_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    monkeypatch.setenv("AWS_REGION", "us-west-2")
    with pytest.raises(ConfigError, match="AWS credentials"):
        build_provider(ModelConfig(provider="bedrock", model=MODEL))


async def test_bedrock_builds_through_the_wiring(
    bedrock: FakeBedrock, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AWS_REGION", "eu-west-1")
    bedrock.add("wired")
    provider = build_provider(
        ModelConfig(provider="bedrock", base_url=bedrock.base_url, api_key="brk-key")
    )
    assert provider.name == "bedrock" and provider.model.context_window == 200_000
    outcome = await drain(provider)
    assert outcome.text == "wired"
    assert MODEL in bedrock.invocations[0].path  # the default Bedrock model


async def test_vertex_claude_goes_through_anthropic_vertex(monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeAnthropic([AnthropicReply(text="from vertex", usage=AnthropicUsage(20, 5))]) as srv:
        provider = vertex_provider(
            model=lookup("vertex", "claude-sonnet-4-5@20250929"),
            project="proj-1",
            region="us-east5",
            access_token="ya29.token",
            base_url=f"{srv.base_url}/v1",
            thinking_budget=1_500,
        )
        outcome = await drain(provider)
        await provider.aclose()
        (request,) = srv.messages
    assert provider.name == "vertex" and outcome.text == "from vertex"
    assert request.path == (
        "/v1/projects/proj-1/locations/us-east5/publishers/anthropic/models/"
        "claude-sonnet-4-5@20250929:streamRawPredict"
    )
    assert request.header("authorization") == "Bearer ya29.token"
    assert "model" not in request.body
    assert request.body["thinking"] == {"type": "enabled", "budget_tokens": 1_500}


async def test_vertex_gemini_goes_through_google_genai(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GOOGLE_CLOUD_PROJECT", "env-proj")
    monkeypatch.setenv("GOOGLE_CLOUD_LOCATION", "europe-west4")
    with FakeGemini(["gemini on vertex"]) as srv:
        provider = build_provider(
            ModelConfig(
                provider="vertex", model="gemini-2.5-pro", base_url=srv.base_url, api_key="ya29.t"
            )
        )
        assert isinstance(provider, GeminiProvider)
        outcome = await drain(provider)
        await provider.aclose()
        (request,) = srv.generations
    assert outcome.text == "gemini on vertex"
    assert "/projects/env-proj/locations/europe-west4/" in request.path
    assert request.header("authorization") == "Bearer ya29.t"


def test_vertex_without_a_project_is_a_config_error(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("GOOGLE_CLOUD_PROJECT", "ANTHROPIC_VERTEX_PROJECT_ID", "GCLOUD_PROJECT"):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(ConfigError, match="GOOGLE_CLOUD_PROJECT"):
        build_provider(ModelConfig(provider="vertex", model="claude-sonnet-4-5@20250929"))
