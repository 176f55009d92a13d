"""A fake Amazon Bedrock runtime for Claude speaking the real wire format over HTTP:
`POST /model/{modelId}/invoke-with-response-stream`, answered with AWS's binary event stream
(`application/vnd.amazon.eventstream`): each frame is a prelude (total and header lengths, CRC32),
typed headers, a JSON payload and a CRC32 of the whole frame. A `chunk` event carries one Anthropic
stream event, base64-encoded in `{"bytes": …}`; a failure mid-stream is an `exception` frame.

    with FakeBedrock(["Hello", AnthropicReply(text="Hi")]) as srv:
        provider = bedrock_provider(model=info, region="us-east-1", base_url=srv.base_url, …)

Steps are the Anthropic fake's (`AnthropicReply`, strings, `Stall()`) or a `BedrockError`.
"""

from __future__ import annotations

import base64
import json
import struct
import zlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, TypeAlias

from tests.fakes.anthropic_server import AnthropicReply, AnthropicUsage
from tests.fakes.anthropic_server import _stream_plan as anthropic_stream
from tests.fakes.server import Planned, RecordedRequest, ScriptedFake, Stall

EVENT_STREAM = "application/vnd.amazon.eventstream"
_STRING = 7  # header value type: UTF-8 string


@dataclass(frozen=True)
class BedrockError:
    """An HTTP error as Bedrock sends it: the type in `x-amzn-ErrorType`, `message` in the body."""

    status: int
    error_type: str  # e.g. ThrottlingException
    message: str = "error"
    headers: Mapping[str, str] = field(default_factory=dict)


Step: TypeAlias = str | AnthropicReply | BedrockError | Stall


def throttled() -> BedrockError:
    return BedrockError(429, "ThrottlingException", "Too many requests, please wait.")


def access_denied() -> BedrockError:
    return BedrockError(
        403, "AccessDeniedException", "You don't have access to the model with the specified ID."
    )


def input_too_long() -> BedrockError:
    return BedrockError(400, "ValidationException", "Input is too long for requested model.")


def service_unavailable() -> BedrockError:
    return BedrockError(503, "ServiceUnavailableException", "Service is unavailable.")


def frame(headers: Mapping[str, str], payload: bytes) -> bytes:
    """One event-stream message: prelude, prelude CRC, headers, payload, message CRC."""
    encoded = b""
    for name, value in headers.items():
        raw_name, raw_value = name.encode(), value.encode()
        encoded += struct.pack(">B", len(raw_name)) + raw_name
        encoded += struct.pack(">BH", _STRING, len(raw_value)) + raw_value
    total = 12 + len(encoded) + len(payload) + 4
    prelude = struct.pack(">II", total, len(encoded))
    message = prelude + struct.pack(">I", zlib.crc32(prelude)) + encoded + payload
    return message + struct.pack(">I", zlib.crc32(message))


def chunk_frame(event: Mapping[str, Any]) -> bytes:
    data = base64.b64encode(json.dumps(event).encode()).decode()
    return frame(
        {":event-type": "chunk", ":content-type": "application/json", ":message-type": "event"},
        json.dumps({"bytes": data, "p": "abcdefgh"}).encode(),
    )


def exception_frame(exception_type: str, message: str) -> bytes:
    return frame(
        {
            ":exception-type": exception_type,
            ":content-type": "application/json",
            ":message-type": "exception",
        },
        json.dumps({"message": message}).encode(),
    )


class FakeBedrock(ScriptedFake[Step]):
    @property
    def invocations(self) -> list[RecordedRequest]:
        return [r for r in self.requests if r.path.endswith("/invoke-with-response-stream")]

    def _respond(self, request: RecordedRequest) -> Planned:
        path = request.path.split("?", 1)[0]
        if request.method != "POST" or not path.endswith("/invoke-with-response-stream"):
            return _error(BedrockError(404, "UnknownOperationException", "Unknown operation"))
        step = self.next_step()
        if step is None:
            return _error(BedrockError(500, "InternalServerException", "no scripted reply left"))
        if isinstance(step, Stall):
            return Planned(stall=True)
        if isinstance(step, BedrockError):
            return _error(step)
        reply = AnthropicReply(text=step) if isinstance(step, str) else step
        model = path.split("/")[2]
        usage = reply.usage or AnthropicUsage(
            input_tokens=max(1, len(request.raw) // 4),
            output_tokens=max(1, len(reply.text) // 4),
        )
        return _event_stream(anthropic_stream(reply, model, usage), usage)


def _error(error: BedrockError) -> Planned:
    headers = {
        "x-amzn-ErrorType": f"{error.error_type}:http://internal.amazon.com/coral/com.amazon.bedrock/",
        "x-amzn-RequestId": "fake-request",
        **error.headers,
    }
    return Planned(status=error.status, headers=headers, json_body={"message": error.message})


def _sse_events(stream: bytes) -> list[tuple[int, dict[str, Any]]]:
    """(offset just past the event, data) for every complete SSE event in `stream`."""
    events: list[tuple[int, dict[str, Any]]] = []
    offset = 0
    for block in stream.split(b"\n\n"):
        offset += len(block) + 2
        for line in block.split(b"\n"):
            if line.startswith(b"data: "):
                events.append((offset, json.loads(line[len(b"data: ") :])))
    return events


def _event_stream(plan: Planned, usage: AnthropicUsage) -> Planned:
    """The Anthropic fake's SSE plan, re-framed as Bedrock's binary event stream."""
    assert plan.stream is not None
    frames: list[bytes] = []
    for end, data in _sse_events(plan.stream):
        if plan.drop_after is not None and end > plan.drop_after:
            break
        if data.get("type") == "ping":
            continue  # Bedrock does not forward pings
        if data.get("type") == "error":
            error = data["error"]
            frames.append(exception_frame(str(error["type"]), str(error.get("message", ""))))
            break
        if data.get("type") == "message_stop":
            data["amazon-bedrock-invocationMetrics"] = {
                "inputTokenCount": usage.input_tokens,
                "outputTokenCount": usage.output_tokens,
                "invocationLatency": 100,
                "firstByteLatency": 10,
            }
        frames.append(chunk_frame(data))
    body = b"".join(frames)
    drop_after = None
    if plan.drop_after is not None:
        # Cut the connection in the middle of the next frame.
        nxt = chunk_frame({"type": "content_block_stop", "index": 0})
        body += nxt
        drop_after = len(body) - len(nxt) // 2
    return Planned(stream=body, drop_after=drop_after, content_type=EVENT_STREAM)
