"""Anthropic's Messages API through the official SDK, streaming, with prompt caching and
extended thinking.

The same adapter serves Claude on Amazon Bedrock and Google Vertex: their SDK clients
(`AsyncAnthropicBedrock`, `AsyncAnthropicVertex`) speak the Messages API over their own transport,
so only the client differs (see `cloud.py`). The SDK is imported inside the methods so that
importing this module stays cheap.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, cast

from pycline.errors import ProviderError, ProviderErrorKind
from pycline.messages import Message
from pycline.parsing.native import ToolDefinition
from pycline.providers import errors, wire_values
from pycline.providers.base import (
    ModelInfo,
    ReasoningChunk,
    StreamChunk,
    TextChunk,
    ToolCallChunk,
    UsageChunk,
)
from pycline.providers.closing import close_stream
from pycline.providers.convert import anthropic_tools, to_anthropic, to_anthropic_system

if TYPE_CHECKING:
    from anthropic import Timeout

DEFAULT_BASE_URL: Final = "https://api.anthropic.com"
_LABEL: Final = "Anthropic"
# Anthropic's smallest thinking budget.
MIN_THINKING_BUDGET: Final = 1_024

# Builds an SDK client (AsyncAnthropic or a cloud variant) for the running event loop. The
# clients share no base class, only the `messages` resource, so it is typed loosely.
ClientFactory = Callable[["Timeout"], Any]


class AnthropicProvider:
    def __init__(
        self,
        *,
        api_key: str,
        model: ModelInfo,
        base_url: str | None = None,
        thinking_budget: int | None = None,
        read_timeout: float = 300.0,
        connect_timeout: float = 10.0,
        name: str = "anthropic",
        label: str | None = None,
        client_factory: ClientFactory | None = None,
        credential_errors: tuple[type[Exception], ...] = (),
    ) -> None:
        self._api_key = api_key
        self._model = model
        self._base_url = base_url or None  # an empty setting means the default
        self._thinking_budget = thinking_budget
        self._read_timeout = read_timeout
        self._connect_timeout = connect_timeout
        self._name = name
        self._display_url = (base_url or DEFAULT_BASE_URL).rstrip("/")
        self._label = label or (_LABEL if base_url is None else self._display_url)
        self._factory = client_factory or self._direct_client
        # What a cloud client raises when it cannot sign a request (no AWS/Google credentials).
        self._credential_errors = credential_errors
        self._client: Any = None
        self._client_loop: asyncio.AbstractEventLoop | None = None

    @property
    def name(self) -> str:
        return self._name

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
        import anthropic
        import httpx2

        client = self._get_client()
        cache = self._model.supports_prompt_cache
        # No `temperature` (nor the one asked for): the SDK we depend on (anthropic 2.x) no
        # longer offers sampling parameters, so the API default applies.
        catch: tuple[type[Exception], ...] = (
            anthropic.APIError,
            httpx2.TransportError,
            *self._credential_errors,
        )
        max_tokens = self._model.max_output_tokens
        thinking: Any = anthropic.omit
        budget = self._thinking()
        if budget is not None:
            thinking = {"type": "enabled", "budget_tokens": budget}
        wire_tools: Any = anthropic_tools(tools) if tools else anthropic.omit
        try:
            response = await client.messages.create(
                model=self._model.id,
                max_tokens=max_tokens,
                system=cast("Any", to_anthropic_system(system, cache=cache)),
                messages=cast("Any", to_anthropic(messages, cache=cache, native=bool(tools))),
                stream=True,
                thinking=thinking,
                tools=wire_tools,
            )
        except catch as exc:
            raise self._translate(exc, streaming=False) from exc

        state = _StreamState()
        chunks = response.__aiter__()
        try:
            async for event in chunks:
                for out in state.feed(event):
                    yield out
        except (anthropic.APIError, httpx2.TransportError) as exc:
            if state.usage is not None:
                yield state.usage  # the input was billed even though the reply broke off
            raise self._translate(exc, streaming=True) from exc
        except errors.MALFORMED_STREAM as exc:
            if state.usage is not None:
                yield state.usage
            raise errors.malformed(self._label, exc) from exc
        finally:
            await close_stream(response, chunks)
        if state.usage is not None:
            yield state.usage
        if not state.stopped:
            raise errors.cut_off(self._label, "the stream ended before message_stop")
        if state.stop_reason == "max_tokens":
            raise errors.output_limit(self._label)
        if state.stop_reason == "model_context_window_exceeded":
            raise ProviderError(
                ProviderErrorKind.CONTEXT_OVERFLOW,
                f"The conversation filled {self._model.id}'s context window before the reply "
                "was finished.",
            )

    def _thinking(self) -> int | None:
        """The thinking budget to send: only for models that think, and below max_tokens."""
        budget = self._thinking_budget
        if not budget or not self._model.supports_reasoning:
            return None
        ceiling = self._model.max_output_tokens - 1
        if ceiling < MIN_THINKING_BUDGET:
            return None
        return max(MIN_THINKING_BUDGET, min(budget, ceiling))

    def _get_client(self) -> Any:
        from anthropic import Timeout

        # The SDK's connection pool belongs to one event loop; a new loop needs a new client.
        loop = asyncio.get_running_loop()
        if self._client is None or self._client_loop is not loop:
            self._client = self._factory(Timeout(self._read_timeout, connect=self._connect_timeout))
            self._client_loop = loop
        return self._client

    def _direct_client(self, timeout: Timeout) -> Any:
        from anthropic import AsyncAnthropic

        return AsyncAnthropic(
            api_key=self._api_key,
            base_url=self._base_url or DEFAULT_BASE_URL,
            # The task loop owns retries (it honours retry-after and asks the user).
            max_retries=0,
            timeout=timeout,
        )

    def _translate(self, exc: Exception, *, streaming: bool) -> ProviderError:
        import anthropic

        if isinstance(exc, anthropic.APIStatusError):
            # An `error` event inside a 200 stream arrives with the stream's status.
            status = exc.status_code if exc.status_code >= 400 else None
            # Bedrock names the error in a header and puts only `message` in the body.
            error_type = exc.type or _amazon_error_type(exc.response.headers)
            return errors.status_error(
                errors.classify(status, error_type=error_type, error_code=exc.error_code),
                label=self._label,
                model_id=self._model.id,
                base_url=self._display_url,
                detail=exc.api_message or _body_message(exc.body),
                status=status,
                retry_after=errors.parse_retry_after(exc.response.headers) if status else None,
                secret=self._api_key,
            )
        if isinstance(exc, self._credential_errors):
            reason = errors.one_line(errors.root_reason(exc), limit=200)
            return ProviderError(
                ProviderErrorKind.AUTH, f"No usable credentials for {self._label} ({reason})."
            )
        if streaming:
            # The server accepted the request and the connection broke mid-reply.
            return errors.cut_off(self._label, f"the connection broke ({errors.root_reason(exc)})")
        return errors.connection_error(self._display_url, exc, secret=self._api_key)


def _amazon_error_type(headers: Any) -> str | None:
    """`x-amzn-ErrorType: ThrottlingException:http://…` → "ThrottlingException"."""
    raw = headers.get("x-amzn-errortype") if headers is not None else None
    return raw.split(":", 1)[0] if isinstance(raw, str) and raw else None


def _body_message(body: object) -> str:
    if isinstance(body, dict):
        message = body.get("message") or body.get("Message")
        if isinstance(message, str):
            return message
    return ""


@dataclass
class _StreamState:
    stopped: bool = False
    stop_reason: str | None = None
    usage: UsageChunk | None = None

    def feed(self, event: Any) -> Iterator[StreamChunk]:
        match event.type:
            case "message_start":
                self.usage = _merge_usage(UsageChunk(), event.message.usage)
            case "content_block_start":
                block = event.content_block
                if block.type == "text" and (text := wire_values.text(block.text, "text")):
                    yield TextChunk(text)
                elif block.type == "tool_use":
                    yield ToolCallChunk(
                        wire_values.index(event.index, "index"),
                        wire_values.optional_text(block.id, "tool_use.id"),
                        wire_values.optional_text(block.name, "tool_use.name"),
                    )
                elif block.type == "thinking" and (
                    thinking := wire_values.text(block.thinking, "thinking")
                ):
                    yield ReasoningChunk(thinking)
            case "content_block_delta":
                delta = event.delta
                if delta.type == "text_delta" and (text := wire_values.text(delta.text, "text")):
                    yield TextChunk(text)
                elif delta.type == "thinking_delta" and (
                    thinking := wire_values.text(delta.thinking, "thinking")
                ):
                    yield ReasoningChunk(thinking)
                elif delta.type == "input_json_delta" and delta.partial_json:
                    yield ToolCallChunk(
                        wire_values.index(event.index, "index"),
                        arguments=wire_values.arguments(delta.partial_json),
                    )
            case "message_delta":
                self.stop_reason = event.delta.stop_reason
                self.usage = _merge_usage(self.usage or UsageChunk(), event.usage)
            case "message_stop":
                self.stopped = True
            case _:
                pass  # content_block_stop, and event types newer than this adapter


def _merge_usage(current: UsageChunk, raw: Any) -> UsageChunk:
    """Anthropic's input_tokens exclude cache reads and writes, like ours.

    message_start carries the input counts; message_delta carries the final output count and,
    on newer API versions, cumulative input counts: a field present in the later event wins.
    """

    def pick(name: str, old: int) -> int:
        value = getattr(raw, name, None)
        return value if isinstance(value, int) else old

    return UsageChunk(
        input_tokens=pick("input_tokens", current.input_tokens),
        output_tokens=pick("output_tokens", current.output_tokens),
        cache_write_tokens=pick("cache_creation_input_tokens", current.cache_write_tokens),
        cache_read_tokens=pick("cache_read_input_tokens", current.cache_read_tokens),
    )
