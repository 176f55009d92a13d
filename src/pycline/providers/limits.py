"""What one request may cost in time and tokens: its output limit and its two timeouts.

Every request carries an output limit: the model's own (for a small local model a short one),
never more than the room the prompt leaves in the context window. A model that loses its way
then stops after a bounded reply instead of rambling until a timeout.

A stream is timed by its silences, never by its length: a slow local model writing 8 tokens a
second for ten minutes is working. Two waits are bounded: the first byte (a local server reads
the whole prompt first, ~30 tokens/s on a small CPU, so that wait grows with the prompt) and any
gap between two chunks after it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from pycline.providers.base import ModelInfo

# A conservative tokenizer: fewer characters per token than most text has, so the prompt is
# never underestimated and the output limit never pushes the request past the window.
CHARS_PER_TOKEN: Final = 3
# Tokens kept free between prompt and output (the chat template's own tokens, estimate error).
WINDOW_MARGIN: Final = 256
# Never ask for less than this, even when the estimate says the prompt nearly fills the window:
# the server then says whether it fits, and the context manager trims.
MIN_OUTPUT: Final = 256

# Remote hosts stream within seconds; these bound a connection that went quiet.
REMOTE_SILENCE: Final = 300.0
# A local server: the prompt is read at PROMPT_READ_RATE tokens/s at worst, on top of a fixed
# allowance (loading the model, other requests ahead in its queue). A 1.5B model on two busy
# cores was measured reading 3-4 tokens/s while other work ran (30 when idle): a dead server
# refuses or drops the connection, so this wait only has to catch one that hangs.
LOCAL_FIRST_BYTE_BASE: Final = 300.0
PROMPT_READ_RATE: Final = 3.0
LOCAL_FIRST_BYTE_MAX: Final = 3_600.0
# While a local server reads another request's prompt, the reply it is writing waits: two
# requests on two busy cores left one silent for over three minutes.
LOCAL_SILENCE: Final = 600.0


@dataclass(frozen=True, slots=True)
class Timeouts:
    first_byte: float  # from sending the request to the reply's first chunk
    silence: float  # between two chunks of the reply


def estimate_tokens(chars: int) -> int:
    return -(-chars // CHARS_PER_TOKEN)


def prompt_chars(wire_messages: Iterable[Mapping[str, Any]]) -> int:
    """The text of chat messages as sent (images are not counted: they are priced apart)."""
    total = 0
    for message in wire_messages:
        content = message.get("content")
        if isinstance(content, str):
            total += len(content)
        elif isinstance(content, list):
            for part in content:
                if isinstance(part, dict) and isinstance(part.get("text"), str):
                    total += len(part["text"])
        for call in message.get("tool_calls") or ():
            function = call.get("function") if isinstance(call, dict) else None
            if isinstance(function, dict):
                total += len(str(function.get("arguments", ""))) + len(str(function.get("name")))
    return total


def output_limit(model: ModelInfo, prompt_tokens: int) -> int:
    """The model's output limit, within the room the prompt leaves in its window."""
    room = model.context_window - prompt_tokens - WINDOW_MARGIN
    return max(1, min(model.max_output_tokens, max(room, MIN_OUTPUT)))


def timeouts(
    model: ModelInfo,
    prompt_tokens: int,
    *,
    silence: float | None = None,
    first_byte: float | None = None,
) -> Timeouts:
    """`silence` (a provider's read timeout) and `first_byte` override the defaults."""
    if not model.local:
        gap = REMOTE_SILENCE if silence is None else silence
        return Timeouts(first_byte=gap if first_byte is None else first_byte, silence=gap)
    gap = LOCAL_SILENCE if silence is None else silence
    if first_byte is None:
        first = LOCAL_FIRST_BYTE_BASE + prompt_tokens / PROMPT_READ_RATE
        first_byte = max(gap, min(first, LOCAL_FIRST_BYTE_MAX))
    return Timeouts(first_byte=first_byte, silence=gap)
