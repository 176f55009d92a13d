"""A reply sent again word for word: only its latest copy is sent, with its latest result.

A small model that repeats a call it already made (usually one that failed) copies its own
earlier replies: each identical copy in the request makes the next one likelier, and at
temperature 0 the loop does not end until the task is stopped. So when an assistant reply is the
same as the one before it (the same text and the same calls; native call ids aside), the earlier
copy and its result are left out of the request: the model sees one attempt, and the latest
result (which says how many times in a row the call was made). The earlier result is left out
only when it is nothing but the tool's output: a message with the user's words, an image or the
environment details stays, with the call it answers. History on disk keeps every copy; what is
left out is the tail of the request only, so the provider's cached prefix is kept up to it.
"""

from __future__ import annotations

from collections.abc import Sequence

from pycline.context.results import parse_header
from pycline.messages import Message, TextContent, ToolUseContent


def _shape(message: Message) -> tuple[object, ...]:
    """The reply as the model wrote it: its text and its calls, without the calls' ids."""
    return tuple(
        (c.name, c.params) if isinstance(c, ToolUseContent) else (c.kind, getattr(c, "text", ""))
        for c in message.content
    )


def _only_output(result: Message) -> bool:
    """A user message that holds nothing but tool results."""
    if result.role != "user" or not result.content:
        return False
    if not all(isinstance(c, TextContent) for c in result.content):
        return False  # an image
    texts = [c for c in result.content if isinstance(c, TextContent)]
    if texts[0].tool_use_id is not None:
        return all(c.tool_use_id is not None for c in texts)  # native results only
    return len(texts) == 1 and parse_header(texts[0].text) is not None


def without_repeats(messages: Sequence[Message]) -> list[Message]:
    """`messages` with each reply that the next reply repeats left out, with its result."""
    out: list[Message] = []
    i = 0
    while i < len(messages):
        call = messages[i]
        if (
            call.role == "assistant"
            and i + 2 < len(messages)
            and messages[i + 2].role == "assistant"
            and _only_output(messages[i + 1])
            and _shape(call) == _shape(messages[i + 2])
        ):
            i += 2  # the next reply says the same: keep that one
            continue
        out.append(call)
        i += 1
    return out
