"""A local model's limits, against fake servers speaking the real wire formats: every request
carries an output limit taken from the server's real window; a slow stream is timed by its
silences, never by its length; a local model that is simply slow is reported as such."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest

from pycline.errors import ProviderErrorKind as Kind
from pycline.messages import Message
from pycline.providers import model_probe
from pycline.providers.base import ModelInfo
from pycline.providers.factory import ProviderSettings, make_provider
from pycline.providers.openai_compat import OpenAIProvider
from pycline.providers.presets import is_local_url
from tests.fakes.openai_server import FakeOpenAI, OpenAIReply
from tests.fakes.server import FakeHTTPServer, Planned, RecordedRequest
from tests.providers.helpers import drain

SMALL = ModelInfo(
    "qwen2.5-coder-1.5b", context_window=8_192, max_output_tokens=2_048, local=True,
    parameter_count=1_500_000_000,
)  # fmt: skip


@pytest.fixture(autouse=True)
def fresh_cache() -> Iterator[None]:
    model_probe.clear_cache()
    yield
    model_probe.clear_cache()


def llamacpp_listing(n_ctx: int | None, *, n_ctx_train: int = 32_768) -> dict[str, Any]:
    meta: dict[str, Any] = {"n_ctx_train": n_ctx_train, "n_params": 1_543_714_304}
    if n_ctx is not None:
        meta["n_ctx"] = n_ctx
    return {
        "object": "list",
        "data": [{"id": "qwen15.gguf", "object": "model", "owned_by": "llamacpp", "meta": meta}],
    }


async def test_every_request_carries_an_output_limit_within_the_room_left() -> None:
    with FakeOpenAI(["ok", "ok"]) as server:
        provider = OpenAIProvider(api_key="k", model=SMALL, base_url=server.base_url)
        await drain(provider, [Message.user("Fix the bug.")])
        # A prompt of ~20,000 characters leaves ~1,300 tokens of an 8,192-token window.
        await drain(provider, [Message.user("x " * 10_000)])
        await provider.aclose()
    short, long = (r.body for r in server.completions)
    assert short["max_completion_tokens"] == 2_048
    assert 256 <= long["max_completion_tokens"] < 1_400


async def test_a_compatible_server_is_sent_max_tokens() -> None:
    with FakeOpenAI(["ok"], models=("qwen15.gguf",)) as server:
        provider = make_provider(
            ProviderSettings(provider="openai", model="qwen15.gguf", base_url=server.base_url)
        )
        await drain(provider)
        await provider.aclose()  # type: ignore[attr-defined]
    (request,) = server.completions
    assert isinstance(request.body["max_tokens"], int) and request.body["max_tokens"] > 0
    assert "max_completion_tokens" not in request.body


async def test_llamacpp_window_and_size_come_from_the_server_and_cap_the_output() -> None:
    listing = llamacpp_listing(16_384)
    fake = FakeOpenAI(
        ["ok"], models=("qwen15.gguf",), model_info={"qwen15.gguf": listing["data"][0]}
    )
    with fake as server:
        # Named otherwise than the server lists it: llama-server serves its one model anyway.
        provider = make_provider(
            ProviderSettings(provider="llamacpp", model="qwen", base_url=server.base_url)
        )
        await drain(provider)
        await provider.aclose()  # type: ignore[attr-defined]
    info = provider.model
    assert info.context_window == 16_384  # what it was loaded with, not the trained 32,768
    assert info.local and info.parameter_count == 1_543_714_304
    assert info.max_output_tokens == 2_048  # a small model's cap
    (request,) = server.completions
    assert request.body["max_tokens"] == 2_048


def test_an_older_llamacpp_is_asked_for_its_loaded_window_once() -> None:
    def older(request: RecordedRequest) -> Planned:
        if request.path == "/v1/models":
            return Planned(json_body=llamacpp_listing(None))
        if request.path == "/props":
            return Planned(json_body={"default_generation_settings": {"n_ctx": 4_096}})
        return Planned(status=404, json_body={})

    with FakeHTTPServer(older) as srv:
        settings = ProviderSettings(provider="openai", model="m", base_url=f"{srv.origin}/v1")
        first = make_provider(settings).model
        second = make_provider(settings).model
        paths = [r.path for r in srv.requests]
    assert first.context_window == second.context_window == 4_096
    assert first.local  # a loopback server is a local one, whatever the preset
    assert paths == ["/v1/models", "/props"]  # cached for the session


def test_ollama_num_ctx_and_parameter_count_are_used() -> None:
    def ollama(request: RecordedRequest) -> Planned:
        return Planned(
            json_body={
                "parameters": "temperature 0.2\nnum_ctx                        8192",
                "model_info": {
                    "qwen2.context_length": 32_768,
                    "general.parameter_count": 494_032_768,
                },
            }
        )

    with FakeHTTPServer(ollama) as srv:
        info = make_provider(
            ProviderSettings(
                provider="ollama", model="qwen2.5-coder:0.5b", base_url=f"{srv.origin}/v1"
            )
        ).model
    assert (info.context_window, info.parameter_count) == (8_192, 494_032_768)
    assert info.max_output_tokens == 2_048


def test_a_model_size_is_read_from_its_name_when_the_server_does_not_say() -> None:
    with FakeHTTPServer(lambda r: Planned(json_body={"data": []})) as srv:
        info = make_provider(
            ProviderSettings(
                provider="vllm", model="Qwen/Qwen2.5-Coder-7B-Instruct", base_url=f"{srv.origin}/v1"
            )
        ).model
    assert info.parameter_count == 7_000_000_000 and info.max_output_tokens == 2_048
    assert model_probe.parameters_from_name("qwen3-coder:30b-a3b") == 30_000_000_000
    assert model_probe.parameters_from_name("smollm2-360m") == 360_000_000
    assert model_probe.parameters_from_name("gpt-4.1") == 0


def test_which_urls_are_local() -> None:
    assert is_local_url("http://127.0.0.1:18081/v1") and is_local_url("http://localhost:1234/v1")
    assert is_local_url("http://192.168.1.20:11434/v1") and is_local_url("http://[::1]:8080")
    assert not is_local_url("https://api.openai.com/v1")
    assert not is_local_url("https://8.8.8.8/v1")


async def test_a_long_slow_stream_is_not_cut_while_it_keeps_arriving() -> None:
    # 16 events 0.25 s apart: the stream lasts about 4 s, each silence a quarter of a second.
    reply = OpenAIReply(text="x" * 48, delta_size=4, gap=0.25)
    with FakeOpenAI([reply]) as server:
        provider = OpenAIProvider(
            api_key="k", model=SMALL, base_url=server.base_url, read_timeout=2.0,
            first_byte_timeout=2.0,
        )  # fmt: skip
        started = time.monotonic()
        outcome = await drain(provider)
        elapsed = time.monotonic() - started
        await provider.aclose()
    assert outcome.error is None and outcome.text == "x" * 48
    assert elapsed > 2.0  # longer than either timeout: only silences are timed


async def test_a_slow_local_model_is_reported_as_slow_and_not_retried() -> None:
    with FakeOpenAI([OpenAIReply(text="late", first_delay=20)]) as server:
        provider = OpenAIProvider(
            api_key="k", model=SMALL, base_url=server.base_url, first_byte_timeout=0.5
        )
        started = time.monotonic()
        outcome = await drain(provider)
        elapsed = time.monotonic() - started
        await provider.aclose()
    error = outcome.error
    assert error is not None and elapsed < 15
    assert error.kind is Kind.OTHER and not error.retryable
    assert "too slow" in str(error) and "Cannot reach" not in str(error)
    assert "tokens" in str(error)


async def test_a_local_stream_that_goes_silent_says_so() -> None:
    reply = OpenAIReply(text="abcdefgh", delta_size=2, stall_after_events=3)
    with FakeOpenAI([reply]) as server:
        provider = OpenAIProvider(
            api_key="k", model=SMALL, base_url=server.base_url, read_timeout=0.5
        )
        outcome = await drain(provider)
        await provider.aclose()
    assert outcome.error is not None and outcome.error.kind is Kind.OTHER
    assert "stopped sending" in str(outcome.error)
    assert outcome.text.startswith("ab")


def test_a_slow_local_model_gets_a_first_byte_wait_that_grows_with_the_prompt() -> None:
    from pycline.providers.limits import timeouts

    short, long = timeouts(SMALL, 1_000), timeouts(SMALL, 10_000)
    assert long.first_byte > short.first_byte >= 300
    assert long.silence == short.silence
    remote = timeouts(ModelInfo("gpt-4o"), 10_000)
    assert remote.first_byte == remote.silence == 300


async def test_a_local_xml_request_stops_at_the_end_of_its_first_call() -> None:
    # llama.cpp does not send the stop sequence it met: the call it ended is closed again.
    reply = OpenAIReply(text="Reading it.\n<read_file>\n<path>a.py</path>\n")
    with FakeOpenAI([reply, "ok"]) as server:
        provider = OpenAIProvider(api_key="k", model=SMALL, base_url=server.base_url)
        outcome = await drain(provider)
        remote = OpenAIProvider(api_key="k", model=ModelInfo("gpt-4o"), base_url=server.base_url)
        await drain(remote)
        await provider.aclose()
        await remote.aclose()
    assert outcome.text.endswith("</path>\n</read_file>")
    local_body, remote_body = (r.body for r in server.completions)
    assert "</read_file>" in local_body["stop"] and "</write_to_file>" in local_body["stop"]
    assert "stop" not in remote_body


async def test_a_local_reply_that_ends_inside_a_value_is_not_run(
    isolated_home: Any, workspace: Any
) -> None:
    from pycline.core.approval import AutoApprove
    from pycline.core.task import TaskSettings
    from pycline.testing import RecordingHost, complete, task_for

    # The file's own text held a closing tag: the server stopped there, mid-content.
    cut = OpenAIReply(
        text="<write_to_file>\n<path>doc.py</path>\n<content>\nDOC = '''\n<read_file>\n"
    )
    with FakeOpenAI([cut, complete("done")]) as server:
        provider = OpenAIProvider(api_key="k", model=SMALL, base_url=server.base_url)
        task = task_for(
            isolated_home, workspace, provider, RecordingHost(), task_text="t",
            settings=TaskSettings(auto_approve=AutoApprove(edit_files=True)),
        )  # fmt: skip
        assert (await task.start("write doc.py")).completed
        await provider.aclose()
    assert not (workspace / "doc.py").exists()
    told = server.completions[1].body["messages"][-1]["content"]
    text = told if isinstance(told, str) else " ".join(p.get("text", "") for p in told)
    assert "ended inside <content> of write_to_file" in text


async def test_a_server_that_refuses_stop_sequences_is_asked_without_them() -> None:
    from tests.fakes.openai_server import OpenAIError

    refused = OpenAIError(400, "'stop' may hold at most 4 sequences", param="stop")
    with FakeOpenAI([refused, "first", "second"]) as server:
        provider = OpenAIProvider(api_key="k", model=SMALL, base_url=server.base_url)
        first = await drain(provider)
        second = await drain(provider)
        await provider.aclose()
    assert (first.text, second.text) == ("first", "second")
    assert ["stop" in r.body for r in server.completions] == [True, False, False]
