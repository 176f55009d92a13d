"""The `Provider` protocol and the chunks a provider streams."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol, TypeAlias

from pycline.messages import Message
from pycline.parsing.native import ToolDefinition


@dataclass(frozen=True, slots=True)
class TextChunk:
    text: str
    kind: Literal["text"] = "text"


@dataclass(frozen=True, slots=True)
class ReasoningChunk:
    text: str
    kind: Literal["reasoning"] = "reasoning"


@dataclass(frozen=True, slots=True)
class UsageChunk:
    """Token usage for one request. `input_tokens` excludes cache reads and writes."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_write_tokens: int = 0
    cache_read_tokens: int = 0
    cost: float | None = None  # when the provider reports it (OpenRouter); else computed
    kind: Literal["usage"] = "usage"


@dataclass(frozen=True, slots=True)
class ToolCallChunk:
    """A piece of a native tool call: `index` tells calls in one reply apart; `id` and `name`
    come with the first piece, `arguments` is the next fragment of the arguments' JSON."""

    index: int
    id: str | None = None
    name: str | None = None
    arguments: str = ""
    kind: Literal["tool_call"] = "tool_call"


StreamChunk: TypeAlias = TextChunk | ReasoningChunk | UsageChunk | ToolCallChunk


@dataclass(frozen=True, slots=True)
class ModelInfo:
    id: str
    context_window: int = 128_000
    max_output_tokens: int = 8_192
    # prices in USD per million tokens
    input_price: float = 0.0
    output_price: float = 0.0
    cache_write_price: float = 0.0
    cache_read_price: float = 0.0
    supports_images: bool = False
    supports_prompt_cache: bool = False
    supports_reasoning: bool = False  # streams thinking / reasoning text
    supports_temperature: bool = True  # o-series and gpt-5 reject `temperature`
    # Calls tools reliably through the API's own tool calling (toolCallFormat "auto" uses it).
    supports_native_tools: bool = False
    # How many parameters the model has, when its server says (or its name does); 0: unknown.
    parameter_count: int = 0
    # Served on this machine or the local network (Ollama, LM Studio, llama.cpp, vLLM, loopback).
    local: bool = False

    def cost(self, usage: UsageChunk) -> float:
        if usage.cost is not None:
            return usage.cost
        return (
            usage.input_tokens * self.input_price
            + usage.output_tokens * self.output_price
            + usage.cache_write_tokens * self.cache_write_price
            + usage.cache_read_tokens * self.cache_read_price
        ) / 1_000_000


class Provider(Protocol):
    """A model endpoint. `stream` yields chunks; failures raise `ProviderError`."""

    @property
    def name(self) -> str: ...

    @property
    def model(self) -> ModelInfo: ...

    def stream(
        self,
        system: str,
        messages: Sequence[Message],
        *,
        tools: Sequence[ToolDefinition] = (),
        temperature: float | None = None,
    ) -> AsyncIterator[StreamChunk]:
        """With `tools`, the model may call them natively (`ToolCallChunk`s); without, tool
        calls already in `messages` are sent as the XML text they stand for. `temperature`
        overrides the provider's own (0 where the model takes one) for this request; a provider
        that cannot set it ignores it."""
        ...
