"""OpenAI and every OpenAI-compatible host (OpenRouter, DeepSeek, vLLM, Ollama, LM Studio, …)
through the official SDK's streaming chat completions.

The SDK is imported inside the methods so that importing this module stays cheap.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from pycline.errors import ProviderError, ProviderErrorKind
from pycline.messages import Message
from pycline.parsing.native import ToolDefinition
from pycline.parsing.stream import StreamingParser
from pycline.parsing.vocab import TOOL_NAMES
from pycline.providers import errors, limits, wire_values
from pycline.providers.base import (
    ModelInfo,
    ReasoningChunk,
    StreamChunk,
    TextChunk,
    ToolCallChunk,
    UsageChunk,
)
from pycline.providers.closing import close_stream
from pycline.providers.convert import openai_tools, to_openai
from pycline.providers.presets import OPENAI, Preset

if TYPE_CHECKING:
    from openai import AsyncOpenAI

DEFAULT_BASE_URL: Final = OPENAI.base_url
# Stop sequences of a local XML request: the closing tag of every tool.
XML_STOPS: Final = tuple(sorted(f"</{name}>" for name in TOOL_NAMES))
# Delta fields in which hosts stream reasoning text (DeepSeek, vLLM, llama.cpp: the first;
# OpenRouter, Ollama: the second).
_REASONING_FIELDS: Final = ("reasoning_content", "reasoning")


class OpenAIProvider:
    def __init__(
        self,
        *,
        api_key: str,
        model: ModelInfo,
        base_url: str | None = None,
        preset: Preset | None = None,
        reasoning_effort: str | None = None,
        read_timeout: float | None = None,
        first_byte_timeout: float | None = None,
        connect_timeout: float = 10.0,
    ) -> None:
        """`read_timeout`: the longest silence within a reply; `first_byte_timeout`: the longest
        wait for its first chunk. Unset, both follow from the model (see `limits.timeouts`)."""
        self._api_key = api_key
        self._model = model
        self._preset = preset or OPENAI
        self._base_url = base_url or None  # an empty setting means the preset's URL
        self._reasoning_effort = reasoning_effort or None
        self._read_timeout = read_timeout
        self._first_byte_timeout = first_byte_timeout
        self._stops_refused = False  # the server rejected a request with stop sequences
        self._connect_timeout = connect_timeout
        self._display_url = (base_url or self._preset.base_url).rstrip("/")
        self._label = self._preset.label if base_url is None else self._display_url
        self._client: AsyncOpenAI | None = None
        self._client_loop: asyncio.AbstractEventLoop | None = None

    @property
    def name(self) -> str:
        return self._preset.name

    @property
    def model(self) -> ModelInfo:
        return self._model

    async def aclose(self) -> None:
        client, self._client = self._client, None
        if client is not None:
            await client.close()

    async def stream(
        self,
        system: str,
        messages: Sequence[Message],
        *,
        tools: Sequence[ToolDefinition] = (),
        temperature: float | None = None,
    ) -> AsyncIterator[StreamChunk]:
        import httpx2
        import openai

        client = self._get_client()
        sampled: float | openai.Omit = (
            (temperature or 0.0) if self._model.supports_temperature else openai.omit
        )
        options = self._request_options()
        # The history goes in as plain JSON data through `extra_body`: given as `messages`, the
        # SDK walks every message against its type annotations on each request, which at a few
        # hundred turns costs far more than the request itself (json.dumps of the same data is
        # cheap). The SDK still builds, sends and parses the request.
        if tools:
            options["tools"] = openai_tools(tools)
        wire = to_openai(system, messages, native=bool(tools))
        prompt_tokens = limits.estimate_tokens(
            limits.prompt_chars(wire) + len(json.dumps(options.get("tools", [])))
        )
        # Every request says how long its reply may be.
        options[self._preset.output_limit_field] = limits.output_limit(self._model, prompt_tokens)
        # A local model asked for XML calls stops at the end of its first call: nothing after it
        # is used, and on a slow CPU every token of it costs time (and cancelling a reply
        # mid-stream can cost the server its cached prompt).
        closer = (
            StreamingParser()
            if not tools and self._model.local and not self._stops_refused
            else None
        )
        if closer is not None:
            options["stop"] = list(XML_STOPS)
        options["extra_body"] = {**options.get("extra_body", {}), "messages": wire}
        waits = limits.timeouts(
            self._model,
            prompt_tokens,
            silence=self._read_timeout,
            first_byte=self._first_byte_timeout,
        )
        clock = _Clock(waits, prompt_tokens)
        try:
            async with clock.waiting():
                try:
                    response = await client.chat.completions.create(
                        model=self._model.id,
                        messages=[],
                        stream=True,
                        temperature=sampled,
                        **options,
                    )
                except openai.BadRequestError as refused:
                    if closer is None or self._translate(refused, streaming=False).kind is not (
                        ProviderErrorKind.BAD_REQUEST
                    ):
                        raise
                    # A server that refuses this many stop sequences: asked again without them,
                    # for the rest of the session (the reply is then cut after its first call).
                    self._stops_refused, closer = True, None
                    del options["stop"]
                    response = await client.chat.completions.create(
                        model=self._model.id,
                        messages=[],
                        stream=True,
                        temperature=sampled,
                        **options,
                    )
        except (openai.APIError, httpx2.TransportError) as exc:
            raise self._translate(exc, streaming=False) from exc
        except TimeoutError as exc:
            raise self._silent(clock) from exc

        state = _StreamState()
        chunks = response.__aiter__()
        try:
            while True:
                try:
                    async with clock.waiting():
                        chunk = await anext(chunks)
                except StopAsyncIteration:
                    break
                clock.received()
                for out in state.feed(chunk):
                    if closer is not None and isinstance(out, TextChunk):
                        closer.feed(out.text)
                    yield out
        except (openai.APIError, httpx2.TransportError) as exc:
            raise self._translate(exc, streaming=True) from exc
        except errors.MALFORMED_STREAM as exc:
            raise errors.malformed(self._label, exc) from exc
        except TimeoutError as exc:
            raise self._silent(clock) from exc
        finally:
            await close_stream(response, chunks)
        if closer is not None and state.finish_reason == "stop":
            # The stop sequence itself is not sent: close the call it ended.
            open_tool = closer.open_tool
            if open_tool is not None and open_tool[1] is None:
                yield TextChunk(f"</{open_tool[0]}>")
            elif open_tool is not None and open_tool[1] is not None:
                if state.usage is not None:
                    yield state.usage
                raise errors.stopped_in_value(self._label, open_tool[0], open_tool[1])
        if state.usage is not None:
            yield state.usage
        if state.finish_reason is None:
            raise errors.cut_off(self._label, "the stream ended before the reply was finished")
        if state.finish_reason == "length":
            raise errors.output_limit(self._label, options[self._preset.output_limit_field])
        if state.finish_reason == "content_filter":
            raise ProviderError(
                ProviderErrorKind.OTHER,
                f"The reply was stopped by the content filter of {self._label}.",
            )

    def _request_options(self) -> dict[str, Any]:
        """The preset's quirks as request arguments (passed through the SDK unchanged)."""
        preset = self._preset
        options: dict[str, Any] = {}
        if preset.stream_options:
            options["stream_options"] = {"include_usage": True}
        body = dict(preset.extra_body)
        effort = self._reasoning_effort if self._model.supports_reasoning else None
        if effort and preset.effort_style == "openai":
            options["reasoning_effort"] = effort
        elif effort and preset.effort_style == "openrouter":
            body["reasoning"] = {"effort": effort}
        if body:
            options["extra_body"] = body
        if preset.extra_headers:
            options["extra_headers"] = dict(preset.extra_headers)
        return options

    def _get_client(self) -> AsyncOpenAI:
        from openai import AsyncOpenAI, Timeout

        # The SDK's connection pool belongs to one event loop; a new loop needs a new client.
        loop = asyncio.get_running_loop()
        if self._client is None or self._client_loop is not loop:
            self._client = AsyncOpenAI(
                api_key=self._api_key,
                base_url=self._base_url or self._preset.base_url,
                # The task loop owns retries (it honours retry-after and asks the user).
                max_retries=0,
                # Silences are timed by `_Clock`, per request; the socket's own read timeout is
                # only a backstop that never fires first.
                timeout=Timeout(None, connect=self._connect_timeout),
            )
            self._client_loop = loop
        return self._client

    def _silent(self, clock: _Clock) -> ProviderError:
        """A wait ran out: for a local model, a plain account of how slow it is, not retried on
        its own (the same request would be as slow again); a remote host is unreachable."""
        waited = clock.limit
        if not self._model.local:
            if clock.chunks:
                return errors.cut_off(self._label, f"nothing arrived for {waited:.0f} s")
            reason = TimeoutError(f"no answer within {waited:.0f} s")
            return errors.connection_error(self._display_url, reason, secret=self._api_key)
        where = f"The local model {self._model.id!r} at {self._display_url}"
        if clock.chunks:
            message = (
                f"{where} stopped sending its reply: nothing arrived for {waited:.0f} s after "
                f"{clock.chunks} chunks. The server may be overloaded or stuck; check it is "
                "still running, then retry."
            )
        else:
            message = (
                f"{where} is too slow: it sent nothing for {waited:.0f} s while reading a "
                f"prompt of about {clock.prompt_tokens:,} tokens (a CPU reads some 30 tokens/s). "
                "Retry once it is less busy, or use a smaller or faster model, or a lower "
                "contextLimit."
            )
        return ProviderError(ProviderErrorKind.OTHER, message)

    def _translate(self, exc: Exception, *, streaming: bool) -> ProviderError:
        import openai

        if isinstance(exc, openai.APIStatusError) and exc.status_code >= 400:
            return self._status_error(exc, status=exc.status_code, headers=exc.response.headers)
        if isinstance(exc, openai.APIConnectionError) or not isinstance(exc, openai.APIError):
            if streaming:
                # The server accepted the request and the connection broke mid-reply.
                return errors.cut_off(
                    self._label, f"the connection broke ({errors.root_reason(exc)})"
                )
            return errors.connection_error(self._display_url, exc, secret=self._api_key)
        # An error object sent inside the stream (`data: {"error": …}`).
        return self._status_error(exc, status=None, headers=None)

    def _status_error(self, exc: Any, *, status: int | None, headers: Any) -> ProviderError:
        body = exc.body if isinstance(exc.body, dict) else {}
        error_type = body.get("type")
        code = body.get("code")
        detail = body.get("message")
        kind = errors.classify(
            status,
            error_type=error_type if isinstance(error_type, str) else None,
            error_code=str(code) if code is not None else None,
        )
        return errors.status_error(
            kind,
            label=self._label,
            model_id=self._model.id,
            base_url=self._display_url,
            detail=detail if isinstance(detail, str) else "",
            status=status,
            retry_after=errors.parse_retry_after(headers),
            secret=self._api_key,
        )


class _Clock:
    """Times the silences of one request: until its first chunk, then between chunks."""

    def __init__(self, waits: limits.Timeouts, prompt_tokens: int) -> None:
        self._waits = waits
        self._started = time.monotonic()
        self.prompt_tokens = prompt_tokens
        self.chunks = 0
        self.limit = waits.first_byte

    def waiting(self) -> asyncio.Timeout:
        if self.chunks:
            self.limit = self._waits.silence
            return asyncio.timeout(self._waits.silence)
        # Sending the request and its first chunk share one wait.
        self.limit = self._waits.first_byte
        return asyncio.timeout_at(
            asyncio.get_running_loop().time() + self._remaining(self._waits.first_byte)
        )

    def _remaining(self, limit: float) -> float:
        return max(0.0, limit - (time.monotonic() - self._started))

    def received(self) -> None:
        self.chunks += 1


@dataclass
class _StreamState:
    finish_reason: str | None = None
    usage: UsageChunk | None = None

    def feed(self, chunk: Any) -> Iterator[StreamChunk]:
        for choice in chunk.choices or ():
            delta = choice.delta
            if delta is not None:
                extra = delta.model_extra or {}
                for field in _REASONING_FIELDS:
                    reasoning = extra.get(field)
                    if isinstance(reasoning, str) and reasoning:
                        yield ReasoningChunk(reasoning)
                if content := wire_values.text(delta.content, "delta.content"):
                    yield TextChunk(content)
                for call in delta.tool_calls or ():
                    function = call.function
                    yield ToolCallChunk(
                        wire_values.index(call.index, "tool_calls.index"),
                        wire_values.optional_text(call.id, "tool_calls.id"),
                        wire_values.optional_text(
                            function.name if function is not None else None, "function.name"
                        ),
                        wire_values.arguments(function.arguments if function is not None else None),
                    )
            if choice.finish_reason:
                self.finish_reason = choice.finish_reason
        if chunk.usage is not None:
            # Hosts that report usage on every chunk send running totals: the last one wins.
            self.usage = _usage(chunk.usage)
        else:
            # Groq reports usage in its own `x_groq` object on the last chunk.
            groq = (chunk.model_extra or {}).get("x_groq")
            if isinstance(groq, dict) and isinstance(groq.get("usage"), dict):
                self.usage = _usage_from_dict(groq["usage"])


def _usage(raw: Any) -> UsageChunk:
    """OpenAI's prompt_tokens include cached tokens; ours exclude them."""
    extra = raw.model_extra or {}
    prompt = raw.prompt_tokens or 0
    details = raw.prompt_tokens_details
    cached = (details.cached_tokens if details is not None else None) or 0
    if not cached:
        # DeepSeek reports cache hits in its own field.
        hit = extra.get("prompt_cache_hit_tokens")
        cached = hit if isinstance(hit, int) else 0
    cost = extra.get("cost")  # OpenRouter reports what the request cost
    return UsageChunk(
        input_tokens=max(0, prompt - cached),
        output_tokens=raw.completion_tokens or 0,
        cache_read_tokens=cached,
        cost=float(cost) if isinstance(cost, int | float) and not isinstance(cost, bool) else None,
    )


def _usage_from_dict(raw: dict[str, Any]) -> UsageChunk:
    def count(name: str) -> int:
        value = raw.get(name)
        return value if isinstance(value, int) and not isinstance(value, bool) else 0

    return UsageChunk(input_tokens=count("prompt_tokens"), output_tokens=count("completion_tokens"))
