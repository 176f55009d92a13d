"""A fake Anthropic Messages API speaking the real SSE wire format over real HTTP.

    with FakeAnthropic(["Hello", AnthropicReply(text="Hi", thinking="hmm")]) as srv:
        provider = AnthropicProvider(api_key="k", model=info, base_url=srv.base_url)

Each POST to /v1/messages takes the next scripted step: a string (a plain reply), an
`AnthropicReply`, an `AnthropicError` (an HTTP error with a real error body), or `Stall()`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, TypeAlias

from tests.fakes.server import (
    FakeToolCall,
    Planned,
    RecordedRequest,
    ScriptedFake,
    Stall,
    pieces,
    sse,
)


@dataclass(frozen=True)
class AnthropicUsage:
    input_tokens: int  # excludes cache reads and writes, as Anthropic counts them
    output_tokens: int
    cache_creation_input_tokens: int = 0
    cache_read_input_tokens: int = 0


@dataclass(frozen=True)
class AnthropicReply:
    text: str = ""
    thinking: str = ""
    usage: AnthropicUsage | None = None  # None: counted from the sizes of request and reply
    stop_reason: str = "end_turn"
    cut_off: bool = False  # drop the connection in the middle of the event after the text
    end_early: bool = False  # end the body cleanly, but before message_delta / message_stop
    stream_error: Mapping[str, Any] | None = None  # an `event: error` after the text
    delta_size: int = 4
    tool_calls: tuple[FakeToolCall, ...] = ()  # tool_use blocks with input_json_delta pieces


@dataclass(frozen=True)
class AnthropicError:
    status: int
    type: str
    message: str = "error"
    error_code: str | None = None  # error.details.error_code
    headers: Mapping[str, str] = field(default_factory=dict)

    def body(self) -> dict[str, Any]:
        error: dict[str, Any] = {"type": self.type, "message": self.message}
        if self.error_code is not None:
            error["details"] = {"error_code": self.error_code}
        return {"type": "error", "error": error, "request_id": "req_fake"}


Step: TypeAlias = str | AnthropicReply | AnthropicError | Stall

OVERLOADED: Mapping[str, Any] = {"type": "overloaded_error", "message": "Overloaded"}


def unauthorized() -> AnthropicError:
    return AnthropicError(401, "authentication_error", "invalid x-api-key")


def model_not_found(model: str) -> AnthropicError:
    return AnthropicError(404, "not_found_error", f"model: {model}")


def rate_limited(retry_after: str = "7") -> AnthropicError:
    return AnthropicError(
        429,
        "rate_limit_error",
        "Number of request tokens has exceeded your per-minute rate limit.",
        headers={"retry-after": retry_after},
    )


def overloaded() -> AnthropicError:
    return AnthropicError(529, "overloaded_error", "Overloaded")


def server_error() -> AnthropicError:
    return AnthropicError(500, "api_error", "Internal server error")


def prompt_too_long() -> AnthropicError:
    return AnthropicError(
        400, "invalid_request_error", "prompt is too long: 210000 tokens > 200000 maximum"
    )


class FakeAnthropic(ScriptedFake[Step]):
    @property
    def messages(self) -> list[RecordedRequest]:
        return [r for r in self.requests if _is_messages_path(r.path.split("?", 1)[0])]

    def _respond(self, request: RecordedRequest) -> Planned:
        path = request.path.split("?", 1)[0]
        if request.method != "POST" or not _is_messages_path(path):
            error = AnthropicError(404, "not_found_error", "Not Found")
            return Planned(status=404, json_body=error.body())
        step = self.next_step()
        if step is None:
            error = AnthropicError(500, "api_error", "fake server: no scripted reply left")
            return Planned(status=500, json_body=error.body())
        if isinstance(step, Stall):
            return Planned(stall=True)
        if isinstance(step, AnthropicError):
            headers = {"request-id": "req_fake", **step.headers}
            return Planned(status=step.status, headers=headers, json_body=step.body())
        reply = AnthropicReply(text=step) if isinstance(step, str) else step
        body = request.body if isinstance(request.body, dict) else {}
        model = str(body.get("model", "claude-sonnet-4-5"))
        usage = reply.usage or AnthropicUsage(
            input_tokens=max(1, len(request.raw) // 4),
            output_tokens=max(1, len(reply.text) // 4),
        )
        if not body.get("stream"):
            return Planned(json_body=_message(reply, model, usage, reply.stop_reason))
        return _stream_plan(reply, model, usage)


def _is_messages_path(path: str) -> bool:
    """Anthropic's own endpoint, or Vertex AI's (…/publishers/anthropic/models/M:streamRawPredict),
    which takes the same body (less `model`) and answers with the same SSE stream."""
    return path == "/v1/messages" or (
        "/publishers/anthropic/models/" in path
        and path.endswith((":streamRawPredict", ":rawPredict"))
    )


def _message(
    reply: AnthropicReply, model: str, usage: AnthropicUsage, stop_reason: str | None
) -> dict[str, Any]:
    content: list[dict[str, Any]] = []
    if reply.thinking:
        content.append({"type": "thinking", "thinking": reply.thinking, "signature": "sig"})
    if reply.text:
        content.append({"type": "text", "text": reply.text})
    return {
        "id": "msg_fake",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": {
            "input_tokens": usage.input_tokens,
            "cache_creation_input_tokens": usage.cache_creation_input_tokens,
            "cache_read_input_tokens": usage.cache_read_input_tokens,
            "output_tokens": usage.output_tokens,
        },
    }


def _stream_plan(reply: AnthropicReply, model: str, usage: AnthropicUsage) -> Planned:
    start = _message(AnthropicReply(), model, usage, None)
    start["usage"]["output_tokens"] = 1
    events = [sse("message_start", {"type": "message_start", "message": start})]
    events.append(sse("ping", {"type": "ping"}))
    index = 0
    if reply.thinking:
        events.append(_block_start(index, {"type": "thinking", "thinking": "", "signature": ""}))
        for part in pieces(reply.thinking, reply.delta_size):
            events.append(_block_delta(index, {"type": "thinking_delta", "thinking": part}))
        events.append(_block_delta(index, {"type": "signature_delta", "signature": "c2ln"}))
        events.append(sse("content_block_stop", {"type": "content_block_stop", "index": index}))
        index += 1
    events.append(_block_start(index, {"type": "text", "text": ""}))
    for number, part in enumerate(pieces(reply.text, reply.delta_size)):
        events.append(_block_delta(index, {"type": "text_delta", "text": part}))
        if number == 2:
            events.append(sse("ping", {"type": "ping"}))
    if reply.cut_off:
        partial = b"".join(events)
        closing = sse("content_block_stop", {"type": "content_block_stop", "index": index})
        return Planned(stream=partial + closing, drop_after=len(partial) + len(closing) // 2)
    if reply.stream_error is not None:
        events.append(sse("error", {"type": "error", "error": dict(reply.stream_error)}))
        return Planned(stream=b"".join(events))
    events.append(sse("content_block_stop", {"type": "content_block_stop", "index": index}))
    for call in reply.tool_calls:
        index += 1
        block = {"type": "tool_use", "id": call.id, "name": call.name, "input": {}}
        events.append(_block_start(index, block))
        for part in pieces(json.dumps(dict(call.arguments)), reply.delta_size):
            events.append(_block_delta(index, {"type": "input_json_delta", "partial_json": part}))
        events.append(sse("content_block_stop", {"type": "content_block_stop", "index": index}))
    if reply.end_early:
        return Planned(stream=b"".join(events))
    events.append(
        sse(
            "message_delta",
            {
                "type": "message_delta",
                "delta": {
                    "stop_reason": "tool_use" if reply.tool_calls else reply.stop_reason,
                    "stop_sequence": None,
                },
                "usage": {"output_tokens": usage.output_tokens},
            },
        )
    )
    events.append(sse("message_stop", {"type": "message_stop"}))
    return Planned(stream=b"".join(events))


def _block_start(index: int, block: dict[str, Any]) -> bytes:
    return sse(
        "content_block_start",
        {"type": "content_block_start", "index": index, "content_block": block},
    )


def _block_delta(index: int, delta: dict[str, Any]) -> bytes:
    return sse(
        "content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}
    )
