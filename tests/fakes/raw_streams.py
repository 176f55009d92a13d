"""Replies built event by event, for tests (and the fuzz bench) that send what the scripted fakes
never would: arguments that are not JSON, fields of the wrong type, `data:` lines that are not
JSON, ids with lone surrogates.

Each wire format has the same few builders — `text`, `tool_call` (its `arguments` sent as given:
a string is the raw JSON text, anything else is put in the event as that JSON value) and `end` —
and `RawFake` serves the assembled bytes, one reply per model request, through the same HTTP
server (chunked, split at odd places) as the other fakes.
"""

from __future__ import annotations

import json
import threading
from collections import deque
from collections.abc import Iterable
from typing import Any, Literal

from tests.fakes.server import FakeHTTPServer, Planned, RecordedRequest, sse

Wire = Literal["openai", "anthropic", "gemini"]


def data_line(payload: bytes | str, event: str | None = None) -> bytes:
    """One SSE event whose `data:` is exactly `payload` (not JSON-encoded)."""
    raw = payload.encode("utf-8", "surrogatepass") if isinstance(payload, str) else payload
    head = f"event: {event}\n".encode() if event else b""
    return head + b"data: " + raw + b"\n\n"


def _json(value: Any) -> bytes:
    # Lone surrogates are sent escaped, as a real server's JSON encoder does.
    return data_line(json.dumps(value))


# --- OpenAI chat completions -----------------------------------------------------------------


def _oa(delta: Any, finish: str | None = None) -> bytes:
    choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
    return _json({"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m",
                  "choices": [choice]})  # fmt: skip


def openai_start() -> bytes:
    return _oa({"role": "assistant", "content": ""})


def openai_text(content: Any) -> bytes:
    return _oa({"content": content})


def openai_tool_call(name: Any, arguments: Any, *, id: Any = "call_1", index: Any = 0) -> bytes:
    function = {"name": name, "arguments": arguments}
    return _oa(
        {"tool_calls": [{"index": index, "id": id, "type": "function", "function": function}]}
    )


def openai_end(finish: str = "stop") -> bytes:
    return _oa({}, finish) + sse(None, "[DONE]")


# --- Anthropic messages --------------------------------------------------------------------------


def anthropic_start() -> bytes:
    message = {"id": "msg", "type": "message", "role": "assistant", "model": "m", "content": [],
               "stop_reason": None, "stop_sequence": None,
               "usage": {"input_tokens": 5, "output_tokens": 1}}  # fmt: skip
    return _event("message_start", {"type": "message_start", "message": message})


def anthropic_text(text: Any, *, index: int = 0) -> bytes:
    return _anthropic_block(
        index, {"type": "text", "text": ""}, {"type": "text_delta", "text": text}
    )


def anthropic_tool_call(name: Any, arguments: Any, *, id: Any = "toolu_1", index: Any = 1) -> bytes:
    block = {"type": "tool_use", "id": id, "name": name, "input": {}}
    return _anthropic_block(index, block, {"type": "input_json_delta", "partial_json": arguments})


def _anthropic_block(index: Any, block: Any, delta: Any) -> bytes:
    """One content block: its start, one delta, its stop."""
    return (
        _event("content_block_start",
               {"type": "content_block_start", "index": index, "content_block": block})
        + _event("content_block_delta",
                 {"type": "content_block_delta", "index": index, "delta": delta})
        + _event("content_block_stop", {"type": "content_block_stop", "index": index})
    )  # fmt: skip


def anthropic_end(stop: str = "end_turn") -> bytes:
    delta = {"stop_reason": stop, "stop_sequence": None}
    return _event(
        "message_delta", {"type": "message_delta", "delta": delta, "usage": {"output_tokens": 3}}
    ) + _event("message_stop", {"type": "message_stop"})


def _event(name: str, value: Any) -> bytes:
    return data_line(json.dumps(value), event=name)


# --- Gemini streamGenerateContent ----------------------------------------------------------------


def _gm(parts: list[Any], **extra: Any) -> bytes:
    return data_line(json.dumps(_gm_body(parts, **extra)))


def _gm_body(parts: list[Any], **extra: Any) -> dict[str, Any]:
    return {"candidates": [{"content": {"role": "model", "parts": parts}, "index": 0, **extra}],
            "modelVersion": "m"}  # fmt: skip


def gemini_start() -> bytes:
    return b""


def gemini_text(text: Any) -> bytes:
    return _gm([{"text": text}])


def gemini_tool_call(name: Any, arguments: Any, *, id: Any = "fc_1", index: Any = 0) -> bytes:
    del index  # Gemini sends each call whole, in its own part
    args = json.loads(arguments) if isinstance(arguments, str) else arguments
    return _gm([{"functionCall": {"id": id, "name": name, "args": args}}])


def gemini_end(stop: str = "STOP") -> bytes:
    usage = {"promptTokenCount": 5, "candidatesTokenCount": 3, "totalTokenCount": 8}
    body = _gm_body([{"text": ""}], finishReason=stop)
    body["usageMetadata"] = usage
    return data_line(json.dumps(body))


# --- by wire format ------------------------------------------------------------------------------

START = {"openai": openai_start, "anthropic": anthropic_start, "gemini": gemini_start}
TEXT = {"openai": openai_text, "anthropic": anthropic_text, "gemini": gemini_text}
TOOL_CALL = {"openai": openai_tool_call, "anthropic": anthropic_tool_call,
             "gemini": gemini_tool_call}  # fmt: skip
END = {"openai": openai_end, "anthropic": anthropic_end, "gemini": gemini_end}
TOOL_STOP = {"openai": "tool_calls", "anthropic": "tool_use", "gemini": "STOP"}


def reply(wire: Wire, *middle: bytes, stop: str | None = None) -> bytes:
    """A whole reply: the start events, `middle`, and the end (with `stop` as its reason)."""
    end = END[wire](stop) if stop is not None else END[wire]()
    return START[wire]() + b"".join(middle) + end


def call(wire: Wire, name: Any, arguments: Any, **ids: Any) -> bytes:
    """A reply that is one native tool call."""
    return reply(wire, TOOL_CALL[wire](name, arguments, **ids), stop=TOOL_STOP[wire])


def completion(wire: Wire, result: str = "done") -> bytes:
    return call(wire, "attempt_completion", json.dumps({"result": result}), id="call_done")


def xml_reply(wire: Wire, text: str) -> bytes:
    return reply(wire, TEXT[wire](text))


class RawFake(FakeHTTPServer):
    """Answers each model request with the next planned reply (bytes: a 200 SSE stream)."""

    def __init__(
        self, replies: Iterable[bytes | Planned] = (), *, seed: int = 0, max_piece: int = 11
    ) -> None:
        super().__init__(self._respond, seed=seed, max_piece=max_piece)
        self._script: deque[bytes | Planned] = deque(replies)
        self._script_lock = threading.Lock()

    def add(self, *replies: bytes | Planned) -> None:
        with self._script_lock:
            self._script.extend(replies)

    @property
    def model_requests(self) -> list[RecordedRequest]:
        return [r for r in self.requests if r.method == "POST"]

    def _respond(self, request: RecordedRequest) -> Planned:
        if request.method == "GET":
            return Planned(json_body={"object": "list", "data": []})
        with self._script_lock:
            step = self._script.popleft() if self._script else None
        if step is None:
            error = {"type": "error", "error": {"type": "api_error", "message": "script used up"}}
            return Planned(status=500, json_body=error)
        return step if isinstance(step, Planned) else Planned(stream=step)
