"""Google Gemini through the official `google-genai` SDK: the Gemini API (API key) or Vertex AI
(project, location, Google credentials), streaming `streamGenerateContent?alt=sse`.

The SDK (an optional extra: `pycline-agent[gemini]`) is imported inside the methods, so
importing this module stays cheap and works without it.
"""

from __future__ import annotations

import asyncio
import json
import weakref
from collections.abc import AsyncIterator, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Final

from pycline.errors import ConfigError, ProviderError, ProviderErrorKind
from pycline.messages import ImageContent, Message, TextContent, ToolUseContent
from pycline.parsing.native import ToolDefinition
from pycline.providers import errors
from pycline.providers.base import (
    ModelInfo,
    ReasoningChunk,
    StreamChunk,
    TextChunk,
    ToolCallChunk,
    UsageChunk,
)
from pycline.providers.convert import EMPTY_TURN

GEMINI_BASE_URL: Final = "https://generativelanguage.googleapis.com"
# Finish reasons that mean the reply was withheld rather than finished.
_BLOCKED: Final = frozenset(
    {"SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "IMAGE_SAFETY"}
)
INSTALL_HINT: Final = "Gemini and Vertex need the google-genai SDK: sh install.sh gemini (in pycline's folder), or pip install 'pycline-agent[gemini]'."


@dataclass(frozen=True, slots=True)
class VertexTarget:
    """Gemini on Vertex AI: which project and location, and optionally a ready credential."""

    project: str
    location: str
    credentials: Any = None  # google.auth credentials; None: Application Default Credentials


class GeminiProvider:
    def __init__(
        self,
        *,
        model: ModelInfo,
        api_key: str | None = None,
        vertex: VertexTarget | None = None,
        base_url: str | None = None,
        thinking_budget: int | None = None,
        read_timeout: float = 300.0,
        connect_timeout: float = 10.0,
    ) -> None:
        if vertex is None and not api_key:
            raise ConfigError("Gemini needs an API key: set GEMINI_API_KEY or pass --api-key.")
        self._model = model
        self._api_key = api_key
        self._vertex = vertex
        self._base_url = base_url or None
        self._thinking_budget = thinking_budget
        self._read_timeout = read_timeout
        self._connect_timeout = connect_timeout
        if vertex is not None:
            default = f"https://{vertex.location}-aiplatform.googleapis.com"
            self._label = "Vertex AI"
        else:
            default = GEMINI_BASE_URL
            self._label = "Gemini"
        self._display_url = (base_url or default).rstrip("/")
        if base_url:
            self._label = self._display_url
        self._client: Any = None
        self._http: Any = None  # our httpx client: the SDK leaves a given client to its owner
        self._client_loop: asyncio.AbstractEventLoop | None = None

    @property
    def name(self) -> str:
        return "vertex" if self._vertex is not None else "gemini"

    @property
    def model(self) -> ModelInfo:
        return self._model

    async def aclose(self) -> None:
        client, self._client = self._client, None
        http, self._http = self._http, None
        if client is not None:
            await client.aio.aclose()
        if http is not None:
            await http.aclose()

    async def stream(
        self,
        system: str,
        messages: Sequence[Message],
        *,
        tools: Sequence[ToolDefinition] = (),
        temperature: float | None = None,
    ) -> AsyncIterator[StreamChunk]:
        import httpx2
        from google.auth.exceptions import GoogleAuthError
        from google.genai import errors as genai_errors

        client = self._get_client()
        try:
            response = await client.aio.models.generate_content_stream(
                model=self._model.id,
                contents=to_gemini(messages, native=bool(tools)),
                config=self._config(system, tools, temperature),
            )
        except (genai_errors.APIError, httpx2.TransportError, GoogleAuthError) as exc:
            raise self._translate(exc, streaming=False) from exc

        state = _StreamState()
        try:
            async for chunk in response:
                state.started = True
                for out in state.feed(chunk):
                    yield out
        except (genai_errors.APIError, httpx2.TransportError, GoogleAuthError) as exc:
            if state.usage is not None:
                yield state.usage
            # The SDK sends the request on first iteration: a failure before any chunk is a
            # failed request, not a reply cut off.
            raise self._translate(exc, streaming=state.started) from exc
        except errors.MALFORMED_STREAM as exc:
            _quiet_abandoned_generators(asyncio.get_running_loop())
            if state.usage is not None:
                yield state.usage
            raise errors.malformed(self._label, exc) from exc
        finally:
            closing = getattr(response, "aclose", None)
            if closing is not None:
                await closing()
        if state.usage is not None:
            yield state.usage
        self._check_finish(state)

    def _check_finish(self, state: _StreamState) -> None:
        if state.blocked is not None:
            raise ProviderError(
                ProviderErrorKind.OTHER,
                f"{self._label} withheld the reply ({state.blocked}). Rephrase the request or "
                "remove the content it objects to.",
            )
        if state.finish_reason is None:
            raise errors.cut_off(self._label, "the stream ended before the reply was finished")
        if state.finish_reason == "MAX_TOKENS":
            raise errors.output_limit(self._label)

    def _config(
        self,
        system: str,
        tools: Sequence[ToolDefinition] = (),
        temperature: float | None = None,
    ) -> Any:
        from google.genai import types

        thinking = None
        if self._model.supports_reasoning:
            # Thoughts are streamed as reasoning; a budget (when set) bounds them.
            thinking = types.ThinkingConfig(
                include_thoughts=True, thinking_budget=self._thinking_budget or None
            )
        return types.GenerateContentConfig(
            system_instruction=system or EMPTY_TURN,
            max_output_tokens=self._model.max_output_tokens,
            temperature=(temperature or 0.0) if self._model.supports_temperature else None,
            thinking_config=thinking,
            tools=[types.Tool(function_declarations=_declarations(tools))] if tools else None,
        )

    def _get_client(self) -> Any:
        try:
            from google import genai
            from google.genai import types
        except ImportError as exc:
            raise ConfigError(INSTALL_HINT) from exc
        import httpx2

        # The HTTP connection pool belongs to one event loop; a new loop needs a new client.
        loop = asyncio.get_running_loop()
        if self._client is not None and self._client_loop is loop:
            return self._client
        timeout = httpx2.Timeout(self._read_timeout, connect=self._connect_timeout)
        self._http = _client_with_timeouts(timeout)
        options = types.HttpOptions(
            base_url=self._base_url,
            # Vertex's default (v1beta1) is right; the Gemini API's thinking settings need v1beta.
            api_version=None if self._vertex is not None else "v1beta",
            # The task loop owns retries (it honours retry-after and asks the user); one attempt.
            retry_options=types.HttpRetryOptions(attempts=1),
            # Our own httpx client: the SDK would otherwise prefer aiohttp when installed, whose
            # connection errors it retries by itself after a random sleep.
            httpx_async_client=self._http,
        )
        if self._vertex is not None:
            self._client = genai.Client(
                vertexai=True,
                project=self._vertex.project,
                location=self._vertex.location,
                credentials=self._vertex.credentials,
                http_options=options,
            )
        else:
            self._client = genai.Client(api_key=self._api_key, http_options=options)
        self._client_loop = loop
        return self._client

    def _translate(self, exc: Exception, *, streaming: bool) -> ProviderError:
        from google.auth.exceptions import GoogleAuthError
        from google.genai import errors as genai_errors

        secret = self._api_key
        if isinstance(exc, genai_errors.APIError):
            status = exc.code if isinstance(exc.code, int) and exc.code >= 400 else None
            details = exc.details if isinstance(exc.details, dict) else {}
            reason, retry_delay = _error_details(details)
            headers = getattr(exc.response, "headers", None)
            retry_after = errors.parse_retry_after(headers) if headers is not None else None
            kind = errors.classify(
                status,
                error_type=exc.status if isinstance(exc.status, str) else None,
                error_code=reason,
            )
            return errors.status_error(
                kind,
                label=self._label,
                model_id=self._model.id,
                base_url=self._display_url,
                detail=exc.message if isinstance(exc.message, str) else "",
                status=status,
                retry_after=retry_after if retry_after is not None else retry_delay,
                secret=secret,
            )
        if isinstance(exc, GoogleAuthError):
            return ProviderError(
                ProviderErrorKind.AUTH,
                f"No usable Google credentials for {self._label} "
                f"({errors.one_line(str(exc), limit=160)}). Run "
                "`gcloud auth application-default login` or set GOOGLE_APPLICATION_CREDENTIALS.",
            )
        if streaming:
            return errors.cut_off(self._label, f"the connection broke ({errors.root_reason(exc)})")
        return errors.connection_error(self._display_url, exc, secret=secret)


def _client_with_timeouts(timeout: Any) -> Any:
    """An httpx client that keeps its own timeouts.

    The SDK passes `timeout=None` ("none at all") on each request unless it is given a total
    timeout, which it also sends to the server as a deadline for the whole generation. We want
    neither a deadline nor an unbounded wait: a connect timeout and a per-read timeout.
    """
    import httpx2

    class Client(httpx2.AsyncClient):
        def build_request(self, *args: Any, **kwargs: Any) -> httpx2.Request:
            if kwargs.get("timeout", httpx2.USE_CLIENT_DEFAULT) is None:
                kwargs["timeout"] = httpx2.USE_CLIENT_DEFAULT
            return super().build_request(*args, **kwargs)

    return Client(timeout=timeout)


def to_gemini(messages: Sequence[Message], *, native: bool = False) -> list[dict[str, Any]]:
    """Our messages as Gemini `contents`: roles user/model, text and inline image parts.

    With `native`, calls become `function_call` parts and results `function_response` parts
    (named after the call they answer); without, both travel as text.
    """
    contents: list[dict[str, Any]] = []
    names: dict[str, str] = {}
    for message in messages:
        parts: list[dict[str, Any]] = []
        results: list[dict[str, Any]] = []
        for content in message.content:
            if isinstance(content, ToolUseContent) and native:
                names[content.id] = content.name
                call = {"id": content.id, "name": content.name, "args": dict(content.params)}
                parts.append({"function_call": call})
            elif isinstance(content, TextContent) and content.tool_use_id is not None and native:
                response = {
                    "id": content.tool_use_id,
                    "name": names.get(content.tool_use_id, "tool"),
                    "response": {"output": content.text},
                }
                results.append({"function_response": response})
            elif isinstance(content, ImageContent):
                parts.append(
                    {"inline_data": {"mime_type": content.media_type, "data": content.data_b64}}
                )
            elif content.text:
                parts.append({"text": content.text})
        parts = results + parts
        if not parts:
            parts.append({"text": EMPTY_TURN})
        contents.append(
            {"role": "model" if message.role == "assistant" else "user", "parts": parts}
        )
    return contents


def _declarations(tools: Sequence[ToolDefinition]) -> Any:
    from google.genai import types

    return [
        types.FunctionDeclaration(
            name=t.name,
            description=t.description,
            parameters_json_schema=_gemini_schema(t.parameters),
        )
        for t in tools
    ]


def _gemini_schema(schema: Any) -> Any:
    """Gemini's schema rejects `additionalProperties`; everything else is standard."""
    if isinstance(schema, dict):
        return {k: _gemini_schema(v) for k, v in schema.items() if k != "additionalProperties"}
    return schema


def _error_details(details: dict[str, Any]) -> tuple[str | None, float | None]:
    """The ErrorInfo reason and the RetryInfo delay ("7s") from a google.rpc error body."""
    error = details.get("error", details)
    items = error.get("details") if isinstance(error, dict) else None
    reason: str | None = None
    delay: float | None = None
    for item in items if isinstance(items, list) else ():
        if not isinstance(item, dict):
            continue
        kind = str(item.get("@type", ""))
        if kind.endswith("google.rpc.ErrorInfo") and isinstance(item.get("reason"), str):
            reason = item["reason"]
        if kind.endswith("google.rpc.RetryInfo"):
            raw = item.get("retryDelay")
            if isinstance(raw, str) and raw.endswith("s"):
                try:
                    delay = max(0.0, float(raw[:-1]))
                except ValueError:
                    delay = None
    return reason, delay


@dataclass
class _StreamState:
    started: bool = False
    finish_reason: str | None = None
    blocked: str | None = None
    usage: UsageChunk | None = None
    calls: int = 0

    def feed(self, chunk: Any) -> Iterator[StreamChunk]:
        feedback = chunk.prompt_feedback
        if feedback is not None and feedback.block_reason is not None:
            self.blocked = _enum_name(feedback.block_reason)
        for candidate in chunk.candidates or ():
            content = candidate.content
            for part in (content.parts if content is not None else None) or ():
                call = part.function_call
                if call is not None:
                    # Gemini sends each call whole, in one part.
                    arguments = json.dumps(call.args or {}, ensure_ascii=False)
                    yield ToolCallChunk(self.calls, call.id or None, call.name or "", arguments)
                    self.calls += 1
                    continue
                if not part.text:
                    continue
                yield ReasoningChunk(part.text) if part.thought else TextChunk(part.text)
            if candidate.finish_reason is not None:
                reason = _enum_name(candidate.finish_reason)
                self.finish_reason = reason
                if reason in _BLOCKED:
                    self.blocked = reason
        if chunk.usage_metadata is not None:
            # Every chunk may carry running totals: the last one wins.
            self.usage = _usage(chunk.usage_metadata)


def _quiet_abandoned_generators(loop: asyncio.AbstractEventLoop) -> None:
    """When the SDK's own check of a chunk fails, its chain of stream generators (down to the
    HTTP response's) is left suspended; the loop then closes each of them separately, and they
    collide ("aclose(): asynchronous generator is already running"). The connection is released
    either way: keep that collision out of the user's terminal."""
    if loop in _QUIETED:
        return
    _QUIETED.add(loop)
    previous = loop.get_exception_handler()

    def handler(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        if context.get("asyncgen") is not None and isinstance(
            context.get("exception"), RuntimeError
        ):
            return
        if previous is not None:
            previous(loop, context)
        else:
            loop.default_exception_handler(context)

    loop.set_exception_handler(handler)


_QUIETED: weakref.WeakSet[asyncio.AbstractEventLoop] = weakref.WeakSet()


def _enum_name(value: Any) -> str:
    return str(getattr(value, "value", value))


def _usage(raw: Any) -> UsageChunk:
    """Gemini's prompt count includes cached tokens; ours excludes them. Thoughts bill as output."""
    prompt = raw.prompt_token_count or 0
    cached = raw.cached_content_token_count or 0
    return UsageChunk(
        input_tokens=max(0, prompt - cached),
        output_tokens=(raw.candidates_token_count or 0) + (raw.thoughts_token_count or 0),
        cache_read_tokens=cached,
    )
