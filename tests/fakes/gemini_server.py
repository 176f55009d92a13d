"""A fake Gemini API (and Vertex AI's Gemini endpoint) speaking the real wire format over HTTP:
`POST …/models/{model}:streamGenerateContent?alt=sse`, answered with `data: {json}\\r\\n\\r\\n`
events whose last one carries `finishReason` and `usageMetadata`.

    with FakeGemini(["Hello", GeminiReply(text="Hi", thought="hmm")]) as srv:
        provider = GeminiProvider(api_key="k", model=info, base_url=srv.base_url)

Each streamGenerateContent request takes the next scripted step: a string, a `GeminiReply`, a
`GeminiError` (an HTTP error with a google.rpc error body), or `Stall()`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeAlias

from tests.fakes.server import FakeToolCall, Planned, RecordedRequest, ScriptedFake, Stall, pieces


@dataclass(frozen=True)
class GeminiUsage:
    prompt: int  # includes cached tokens, as Gemini counts them
    candidates: int
    cached: int = 0
    thoughts: int = 0


@dataclass(frozen=True)
class GeminiReply:
    text: str = ""
    thought: str = ""  # streamed as parts with "thought": true
    usage: GeminiUsage | None = None  # None: counted from the sizes of request and reply
    finish_reason: str | None = "STOP"  # None: the stream ends without one
    blocked: str | None = None  # promptFeedback.blockReason (no candidates at all)
    cut_off: bool = False  # drop the connection in the middle of the event after the text
    stream_error: Mapping[str, Any] | None = None  # an `{"error": …}` event after the text
    delta_size: int = 4
    tool_calls: tuple[FakeToolCall, ...] = ()  # each a whole `functionCall` part, after the text


@dataclass(frozen=True)
class GeminiError:
    status: int
    rpc_status: str
    message: str = "error"
    details: Sequence[Mapping[str, Any]] = ()
    headers: Mapping[str, str] = field(default_factory=dict)

    def body(self) -> dict[str, Any]:
        return {
            "error": {
                "code": self.status,
                "message": self.message,
                "status": self.rpc_status,
                "details": [dict(d) for d in self.details],
            }
        }


Step: TypeAlias = str | GeminiReply | GeminiError | Stall


def rate_limited(delay: str = "7s") -> GeminiError:
    return GeminiError(
        429,
        "RESOURCE_EXHAUSTED",
        "You exceeded your current quota, please check your plan and billing details.",
        details=[
            {
                "@type": "type.googleapis.com/google.rpc.QuotaFailure",
                "violations": [{"quotaMetric": "generate_content_free_tier_requests"}],
            },
            {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": delay},
        ],
    )


def bad_api_key() -> GeminiError:
    return GeminiError(
        400,
        "INVALID_ARGUMENT",
        "API key not valid. Please pass a valid API key.",
        details=[
            {
                "@type": "type.googleapis.com/google.rpc.ErrorInfo",
                "reason": "API_KEY_INVALID",
                "domain": "googleapis.com",
            }
        ],
    )


def unavailable() -> GeminiError:
    return GeminiError(503, "UNAVAILABLE", "The model is overloaded. Please try again later.")


def not_found(model: str) -> GeminiError:
    return GeminiError(404, "NOT_FOUND", f"models/{model} is not found for API version v1beta")


class FakeGemini(ScriptedFake[Step]):
    @property
    def generations(self) -> list[RecordedRequest]:
        return [r for r in self.requests if ":streamGenerateContent" in r.path]

    def _respond(self, request: RecordedRequest) -> Planned:
        path, _, query = request.path.partition("?")
        if request.method != "POST" or not path.endswith(":streamGenerateContent"):
            error = GeminiError(404, "NOT_FOUND", f"Unknown path {path}")
            return Planned(status=404, json_body=error.body())
        step = self.next_step()
        if step is None:
            error = GeminiError(500, "INTERNAL", "fake server: no scripted reply left")
            return Planned(status=500, json_body=error.body())
        if isinstance(step, Stall):
            return Planned(stall=True)
        if isinstance(step, GeminiError):
            return Planned(status=step.status, headers=step.headers, json_body=step.body())
        reply = GeminiReply(text=step) if isinstance(step, str) else step
        usage = reply.usage or GeminiUsage(
            prompt=max(1, len(request.raw) // 4), candidates=max(1, len(reply.text) // 4)
        )
        model = path.rsplit("/", 1)[-1].split(":", 1)[0]
        if "alt=sse" not in query:
            # Without alt=sse Gemini streams one JSON array; the SDK always asks for SSE.
            error = GeminiError(400, "INVALID_ARGUMENT", "fake server: expected alt=sse")
            return Planned(status=400, json_body=error.body())
        return _stream_plan(reply, model, usage)


def _event(data: Mapping[str, Any]) -> bytes:
    return f"data: {json.dumps(data, ensure_ascii=False)}\r\n\r\n".encode()


def _usage_json(usage: GeminiUsage) -> dict[str, Any]:
    out: dict[str, Any] = {
        "promptTokenCount": usage.prompt,
        "candidatesTokenCount": usage.candidates,
        "totalTokenCount": usage.prompt + usage.candidates + usage.thoughts,
    }
    if usage.cached:
        out["cachedContentTokenCount"] = usage.cached
    if usage.thoughts:
        out["thoughtsTokenCount"] = usage.thoughts
    return out


def _chunk(model: str, parts: list[dict[str, Any]], **candidate: Any) -> dict[str, Any]:
    return {
        "candidates": [{"content": {"parts": parts, "role": "model"}, "index": 0, **candidate}],
        "modelVersion": model,
        "responseId": "fake-response",
    }


def _stream_plan(reply: GeminiReply, model: str, usage: GeminiUsage) -> Planned:
    if reply.blocked is not None:
        body = {
            "promptFeedback": {"blockReason": reply.blocked},
            "usageMetadata": _usage_json(usage),
            "modelVersion": model,
        }
        return Planned(stream=_event(body))
    events = [
        _event(_chunk(model, [{"text": part, "thought": True}]))
        for part in pieces(reply.thought, reply.delta_size)
    ]
    events.extend(
        _event(_chunk(model, [{"text": part}])) for part in pieces(reply.text, reply.delta_size)
    )
    events.extend(
        _event(_chunk(model, [{"functionCall": {"id": c.id, "name": c.name,
                                                "args": dict(c.arguments)}}]))
        for c in reply.tool_calls
    )  # fmt: skip
    if reply.cut_off:
        partial = b"".join(events)
        closing = _event(_chunk(model, [{"text": ""}], finishReason="STOP"))
        return Planned(stream=partial + closing, drop_after=len(partial) + len(closing) // 2)
    if reply.stream_error is not None:
        events.append(_event({"error": dict(reply.stream_error)}))
        return Planned(stream=b"".join(events))
    if reply.finish_reason is not None:
        last = _chunk(model, [{"text": ""}], finishReason=reply.finish_reason)
        last["usageMetadata"] = _usage_json(usage)
        events.append(_event(last))
    return Planned(stream=b"".join(events))
