"""Shared helpers for the provider tests: drain a stream, keeping what arrived before a failure."""

from __future__ import annotations

import socket
from collections.abc import Sequence
from dataclasses import dataclass, field

from pycline.errors import ProviderError
from pycline.messages import Message
from pycline.providers.base import (
    Provider,
    ReasoningChunk,
    StreamChunk,
    TextChunk,
    UsageChunk,
)


@dataclass
class Outcome:
    chunks: list[StreamChunk] = field(default_factory=list)
    error: ProviderError | None = None

    @property
    def text(self) -> str:
        return "".join(c.text for c in self.chunks if isinstance(c, TextChunk))

    @property
    def reasoning(self) -> str:
        return "".join(c.text for c in self.chunks if isinstance(c, ReasoningChunk))

    @property
    def usage(self) -> list[UsageChunk]:
        return [c for c in self.chunks if isinstance(c, UsageChunk)]


async def drain(
    provider: Provider,
    messages: Sequence[Message] = (),
    *,
    system: str = "You are terse.",
    temperature: float | None = None,
) -> Outcome:
    outcome = Outcome()
    try:
        sent = list(messages) or [Message.user("Hi")]
        async for chunk in provider.stream(system, sent, temperature=temperature):
            outcome.chunks.append(chunk)
    except ProviderError as exc:
        outcome.error = exc
    return outcome


def closed_port() -> int:
    """A loopback port that nothing listens on (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])
