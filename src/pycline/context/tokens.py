"""Token estimates for when the provider reported no usage.

No tokenizer is downloaded: a fixed ratio is close enough for budgeting. Real tokenizers give
about 4 characters per token for English prose and 3-3.5 for code and JSON; 3.5 errs on the side
of over-counting, so an estimate trims a little early rather than overflowing the window.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from pycline.messages import ImageContent, Message, TextContent, ToolUseContent

CHARS_PER_TOKEN = 3.5
# Anthropic bills an image of up to ~1.15 megapixels at about 1,600 tokens; other vendors are in
# the same range. Images are resized before sending, so one fixed figure is enough.
IMAGE_TOKENS = 1_600
# Role markers and block framing cost a few tokens per message.
MESSAGE_OVERHEAD = 4


def estimate_text(text: str) -> int:
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def estimate_message(message: Message) -> int:
    total = MESSAGE_OVERHEAD
    for block in message.content:
        if isinstance(block, TextContent | ToolUseContent):
            total += estimate_text(block.text)
        elif isinstance(block, ImageContent):
            total += IMAGE_TOKENS
    return total


def estimate_messages(messages: Iterable[Message]) -> int:
    return sum(estimate_message(m) for m in messages)
