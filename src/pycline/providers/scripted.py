"""A provider that replays scripted replies: for tests, demos and offline plumbing checks.

Script file format (JSON): a list of replies, or `{"model": {...}, "replies": [...]}`. A reply is a
string, or an object `{"text": str, "reasoning": str, "tool_calls": [...], "usage": {...},
"error": {...}}` where `error` (`{"kind": "server", "status": 500, "message": "..."}`) makes that
request fail after streaming `text` (a cut-off reply when `text` is set).

A tool call is `{"name": str, "arguments": {...}}` (optionally `"id"`). When the request offers
tools it streams as a native call; otherwise as the XML text it stands for, so one script serves
both tool-call formats.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pycline.errors import ConfigError, ProviderError, ProviderErrorKind
from pycline.messages import Message
from pycline.parsing.native import ToolDefinition
from pycline.providers.base import (
    ModelInfo,
    ReasoningChunk,
    StreamChunk,
    TextChunk,
    ToolCallChunk,
    UsageChunk,
)


@dataclass(frozen=True, slots=True)
class ScriptedCall:
    name: str
    arguments: Mapping[str, Any]
    id: str = ""

    def xml(self) -> str:
        body = "".join(f"<{k}>{_as_text(v)}</{k}>\n" for k, v in self.arguments.items())
        return f"<{self.name}>\n{body}</{self.name}>"


@dataclass(frozen=True, slots=True)
class ScriptedReply:
    text: str = ""
    reasoning: str = ""
    usage: UsageChunk | None = None
    error: ProviderError | None = None
    tool_calls: tuple[ScriptedCall, ...] = ()


@dataclass(frozen=True, slots=True)
class RecordedRequest:
    system: str
    messages: tuple[Message, ...]
    tools: tuple[ToolDefinition, ...] = ()
    temperature: float | None = None


@dataclass
class ScriptedProvider:
    replies: list[ScriptedReply]
    chunk_size: int = 7
    model_info: ModelInfo = field(
        default_factory=lambda: ModelInfo(id="scripted", context_window=200_000)
    )
    requests: list[RecordedRequest] = field(default_factory=list)

    @property
    def name(self) -> str:
        return "scripted"

    @property
    def model(self) -> ModelInfo:
        return self.model_info

    @staticmethod
    def of(*replies: str | ScriptedReply, chunk_size: int = 7) -> ScriptedProvider:
        return ScriptedProvider(
            [r if isinstance(r, ScriptedReply) else ScriptedReply(text=r) for r in replies],
            chunk_size=chunk_size,
        )

    @staticmethod
    def from_file(path: str | Path, *, chunk_size: int = 7) -> ScriptedProvider:
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise ConfigError(f"Cannot read the script file {path}: {exc}") from exc
        return ScriptedProvider.from_json(data, chunk_size=chunk_size)

    @staticmethod
    def from_json(data: Any, *, chunk_size: int = 7) -> ScriptedProvider:
        model = ModelInfo(id="scripted", context_window=200_000)
        raw_replies = data
        if isinstance(data, dict):
            raw_replies = data.get("replies", [])
            if isinstance(data.get("model"), dict):
                model = ModelInfo(**{"id": "scripted", **data["model"]})
        if not isinstance(raw_replies, list):
            raise ConfigError("A script must be a list of replies.")
        replies = [_reply_from_json(r) for r in raw_replies]
        return ScriptedProvider(replies, chunk_size=chunk_size, model_info=model)

    async def stream(
        self,
        system: str,
        messages: Sequence[Message],
        *,
        tools: Sequence[ToolDefinition] = (),
        temperature: float | None = None,
    ) -> AsyncIterator[StreamChunk]:
        index = len(self.requests)
        self.requests.append(RecordedRequest(system, tuple(messages), tuple(tools), temperature))
        if index >= len(self.replies):
            raise ProviderError(
                ProviderErrorKind.OTHER, f"The script has no reply left (request {index + 1})."
            )
        reply = self.replies[index]
        if reply.reasoning:
            yield ReasoningChunk(reply.reasoning)
        step = max(1, self.chunk_size)
        text = reply.text
        if reply.tool_calls and not tools:
            text = "\n".join([text, *(c.xml() for c in reply.tool_calls)]).strip()
        for start in range(0, len(text), step):
            yield TextChunk(text[start : start + step])
        if tools:
            for n, call in enumerate(reply.tool_calls):
                arguments = json.dumps(dict(call.arguments), ensure_ascii=False)
                yield ToolCallChunk(n, call.id or f"call_{index}_{n}", call.name)
                for start in range(0, len(arguments), step):
                    yield ToolCallChunk(n, arguments=arguments[start : start + step])
        if reply.error is not None:
            raise reply.error
        yield reply.usage or UsageChunk(
            input_tokens=sum(len(m.text) for m in messages) // 4 + len(system) // 4,
            output_tokens=len(reply.text) // 4,
        )


def _reply_from_json(raw: Any) -> ScriptedReply:
    if isinstance(raw, str):
        return ScriptedReply(text=raw)
    if not isinstance(raw, dict):
        raise ConfigError(f"A scripted reply must be a string or an object, not {raw!r}.")
    usage = None
    if isinstance(raw.get("usage"), dict):
        usage = UsageChunk(**{k: v for k, v in raw["usage"].items() if k != "kind"})
    error = None
    if isinstance(raw.get("error"), dict):
        err = raw["error"]
        error = ProviderError(
            ProviderErrorKind(err.get("kind", "other")),
            str(err.get("message", "scripted error")),
            status=err.get("status"),
        )
    calls = raw.get("tool_calls", [])
    if not isinstance(calls, list) or not all(
        isinstance(c, dict) and isinstance(c.get("name"), str) for c in calls
    ):
        raise ConfigError("A scripted reply's tool_calls must be a list of {name, arguments}.")
    return ScriptedReply(
        tool_calls=tuple(
            ScriptedCall(c["name"], dict(c.get("arguments") or {}), str(c.get("id", "")))
            for c in calls
        ),
        text=str(raw.get("text", "")),
        reasoning=str(raw.get("reasoning", "")),
        usage=usage,
        error=error,
    )


def _as_text(value: object) -> str:
    return value if isinstance(value, str) else json.dumps(value)
