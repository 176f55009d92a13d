"""A fake OpenAI chat-completions API speaking the real wire format over real HTTP.

    with FakeOpenAI(["Hello", OpenAIReply(text="Hi", reasoning="hmm")]) as srv:
        provider = OpenAIProvider(api_key="k", model=info, base_url=srv.base_url)
        ...
        srv.requests[0].body["messages"]

Each POST to /v1/chat/completions takes the next scripted step: a string (a plain reply), an
`OpenAIReply`, an `OpenAIError` (an HTTP error with a real error body), or `Stall()`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
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
class OpenAIUsage:
    prompt_tokens: int  # includes cached tokens, as OpenAI counts them
    completion_tokens: int
    cached_tokens: int | None = None  # None: no prompt_tokens_details at all
    extra: Mapping[str, Any] = field(default_factory=dict)  # e.g. {"cost": 0.01} (OpenRouter)


@dataclass(frozen=True)
class OpenAIReply:
    text: str = ""
    reasoning: str = ""
    reasoning_field: str = "reasoning_content"  # "reasoning" for OpenRouter / Ollama style
    usage: OpenAIUsage | None = None  # None: counted from the sizes of request and reply
    finish_reason: str | None = "stop"  # None: the stream ends cleanly without one
    cut_off: bool = False  # drop the connection in the middle of the event after the text
    stream_error: Mapping[str, Any] | None = None  # `data: {"error": …}` after the text
    delta_size: int = 4
    tool_calls: tuple[FakeToolCall, ...] = ()  # streamed as `tool_calls` deltas after the text
    # A slow local model: seconds before the first byte, between events; silent after N events.
    first_delay: float = 0.0
    gap: float = 0.0
    stall_after_events: int | None = None


@dataclass(frozen=True)
class OpenAIError:
    status: int
    message: str = "error"
    type: str = "invalid_request_error"
    code: str | None = None
    param: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict)

    def body(self) -> dict[str, Any]:
        return {
            "error": {
                "message": self.message,
                "type": self.type,
                "param": self.param,
                "code": self.code,
            }
        }


Step: TypeAlias = str | OpenAIReply | OpenAIError | Stall


def unauthorized() -> OpenAIError:
    return OpenAIError(
        401,
        "Incorrect API key provided: sk-te****2345. You can find your API key in your account.",
        type="invalid_request_error",
        code="invalid_api_key",
    )


def model_not_found(model: str) -> OpenAIError:
    return OpenAIError(
        404,
        f"The model `{model}` does not exist or you do not have access to it.",
        code="model_not_found",
    )


def rate_limited(retry_after: str = "7") -> OpenAIError:
    return OpenAIError(
        429,
        "Rate limit reached for requests per min.",
        type="requests",
        code="rate_limit_exceeded",
        headers={"retry-after": retry_after},
    )


def out_of_quota() -> OpenAIError:
    return OpenAIError(
        429,
        "You exceeded your current quota, please check your plan and billing details.",
        type="insufficient_quota",
        code="insufficient_quota",
    )


def context_too_long() -> OpenAIError:
    return OpenAIError(
        400,
        "This model's maximum context length is 128000 tokens.",
        param="messages",
        code="context_length_exceeded",
    )


def server_error() -> OpenAIError:
    return OpenAIError(
        500, "The server had an error while processing your request.", type="server_error"
    )


class FakeOpenAI(ScriptedFake[Step]):
    def __init__(
        self,
        replies: Iterable[Step] = (),
        *,
        seed: int = 0,
        models: Iterable[str] = ("gpt-4o",),
        api_key: str | None = None,  # set: any other bearer token gets a 401
        model_info: Mapping[str, Mapping[str, Any]] | None = None,  # extra fields per model id
    ) -> None:
        super().__init__(replies, seed=seed)
        self.models = tuple(models)
        self.api_key = api_key
        self.model_info = model_info or {}

    @property
    def base_url(self) -> str:
        return f"{self.origin}/v1"

    @property
    def completions(self) -> list[RecordedRequest]:
        return [r for r in self.requests if r.path.endswith("/chat/completions")]

    def _respond(self, request: RecordedRequest) -> Planned:
        path = request.path.split("?", 1)[0]
        if self.api_key is not None and request.header("authorization") != f"Bearer {self.api_key}":
            return Planned(status=401, json_body=unauthorized().body())
        if request.method == "GET" and path == "/v1/models":
            data = [
                {
                    "id": m,
                    "object": "model",
                    "created": 0,
                    "owned_by": "fake",
                    **self.model_info.get(m, {}),
                }
                for m in self.models
            ]
            return Planned(json_body={"object": "list", "data": data})
        if request.method != "POST" or path != "/v1/chat/completions":
            error = OpenAIError(404, f"Invalid URL ({request.method} {path})", code="unknown_url")
            return Planned(status=404, json_body=error.body())
        step = self.next_step()
        if step is None:
            error = OpenAIError(500, "fake server: no scripted reply left", type="server_error")
            return Planned(status=500, json_body=error.body())
        if isinstance(step, Stall):
            return Planned(stall=True)
        if isinstance(step, OpenAIError):
            headers = {"x-request-id": "req_fake", **step.headers}
            return Planned(status=step.status, headers=headers, json_body=step.body())
        reply = OpenAIReply(text=step) if isinstance(step, str) else step
        body = request.body if isinstance(request.body, dict) else {}
        model = str(body.get("model", "gpt-4o"))
        usage = reply.usage or OpenAIUsage(
            prompt_tokens=max(1, len(request.raw) // 4),
            completion_tokens=max(1, len(reply.text) // 4),
            cached_tokens=0,
        )
        if not body.get("stream"):
            return Planned(json_body=_completion(reply, model, usage))
        include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
        return _stream_plan(reply, model, usage if include_usage else None)


def _usage_json(usage: OpenAIUsage) -> dict[str, Any]:
    out: dict[str, Any] = {
        "prompt_tokens": usage.prompt_tokens,
        "completion_tokens": usage.completion_tokens,
        "total_tokens": usage.prompt_tokens + usage.completion_tokens,
    }
    if usage.cached_tokens is not None:
        out["prompt_tokens_details"] = {"cached_tokens": usage.cached_tokens, "audio_tokens": 0}
    out.update(usage.extra)
    return out


def _chunk(model: str, choices: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion.chunk",
        "created": 1_700_000_000,
        "model": model,
        "system_fingerprint": "fp_fake",
        "choices": choices,
        **extra,
    }


def _delta(model: str, delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return _chunk(model, [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}])


def _stream_plan(reply: OpenAIReply, model: str, usage: OpenAIUsage | None) -> Planned:
    events = [sse(None, _delta(model, {"role": "assistant", "content": ""}))]
    for part in pieces(reply.reasoning, reply.delta_size):
        events.append(sse(None, _delta(model, {"content": None, reply.reasoning_field: part})))
    for part in pieces(reply.text, reply.delta_size):
        events.append(sse(None, _delta(model, {"content": part})))
    for index, call in enumerate(reply.tool_calls):
        head = {"index": index, "id": call.id, "type": "function",
                "function": {"name": call.name, "arguments": ""}}  # fmt: skip
        events.append(sse(None, _delta(model, {"tool_calls": [head]})))
        for part in pieces(json.dumps(dict(call.arguments)), reply.delta_size):
            piece = {"index": index, "function": {"arguments": part}}
            events.append(sse(None, _delta(model, {"tool_calls": [piece]})))
    if reply.cut_off:
        partial = b"".join(events)
        closing = sse(None, _delta(model, {}, reply.finish_reason or "stop"))
        # Drop the connection half-way through the next event.
        return Planned(stream=partial + closing, drop_after=len(partial) + len(closing) // 2)
    if reply.stream_error is not None:
        events.append(sse(None, {"error": dict(reply.stream_error)}))
        return Planned(stream=b"".join(events))
    if reply.finish_reason is not None:
        finish = "tool_calls" if reply.tool_calls else reply.finish_reason
        events.append(sse(None, _delta(model, {}, finish)))
    if usage is not None:
        events.append(sse(None, _chunk(model, [], usage=_usage_json(usage))))
    events.append(sse(None, "[DONE]"))
    return Planned(
        stream=b"".join(events),
        first_delay=reply.first_delay,
        gap=reply.gap,
        stall_after_events=reply.stall_after_events,
    )


def _completion(reply: OpenAIReply, model: str, usage: OpenAIUsage) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": reply.text, "refusal": None}
    if reply.reasoning:
        message[reply.reasoning_field] = reply.reasoning
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": message,
                "logprobs": None,
                "finish_reason": reply.finish_reason or "stop",
            }
        ],
        "usage": _usage_json(usage),
    }
