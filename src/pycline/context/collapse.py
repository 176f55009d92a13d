"""Old steps whose results are all spent leave the request, with one line saying what they were.

After `lighten`'s notes, an old step whose result says only "superseded" (an older copy of a file,
the output of a call made again later, an old output cut short) still costs its call and its
note on every request, so a long task keeps growing by a few hundred characters a turn. Such
steps, once `recent` turns old, are left out in pairs (the call with its result, so native calls
stay matched and roles keep alternating), and the user message before each run of them gets one
line counting what was left out. A step is kept whenever its result holds anything else: the
latest copy of a file, an error (a failed command's cut output too), the user's words, an image.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from functools import lru_cache

from pycline.context.results import looks_failed, parse_header
from pycline.messages import Message, TextContent, ToolUseContent
from pycline.parsing.blocks import ToolUseBlock
from pycline.parsing.stream import parse_assistant_message

# The task, the first reply and its result stay (see truncation.PAIR_SAFE_HEAD).
HEAD = 3
# A spent result is a note, not content: anything longer holds more than the note.
SPENT_BODY_CHARS = 1_200


def digest(counts: Mapping[str, int]) -> str:
    steps = sum(counts.values())
    tools = ", ".join(f"{name} ×{n}" for name, n in sorted(counts.items()))
    return (
        f"[{steps} earlier step{'s' if steps != 1 else ''} left out to save context ({tools}): "
        "their results were superseded by later ones. Repeat a call if you need its output.]"
    )


# Cached per message (messages are immutable; a long task checks the same ones on every request).
@lru_cache(maxsize=4096)
def calls_of(message: Message) -> tuple[str, ...]:
    native = tuple(c.name for c in message.content if isinstance(c, ToolUseContent))
    if native:
        return native
    return tuple(
        b.name for b in parse_assistant_message(message.text) if isinstance(b, ToolUseBlock)
    )


def _spent(text: str, markers: Sequence[str]) -> bool:
    header = parse_header(text)
    if header is None or len(text) - header.end > SPENT_BODY_CHARS:
        return False
    body = text[header.end :]
    return not looks_failed(body) and any(m in body for m in markers)


@lru_cache(maxsize=4096)
def spent_step(call: Message, result: Message, markers: tuple[str, ...]) -> bool:
    if call.role != "assistant" or result.role != "user" or not calls_of(call):
        return False
    native = any(isinstance(c, ToolUseContent) for c in call.content)
    for j, block in enumerate(result.content):
        if not isinstance(block, TextContent):
            return False  # an image
        if native and block.tool_use_id is None:
            return False  # the user's words, a reminder, news in the environment details
        if not native and j > 0:
            return False
        if not _spent(block.text, markers):
            return False
    return bool(result.content)


def collapse_spent(
    messages: Sequence[Message], *, markers: tuple[str, ...], recent: int
) -> list[Message]:
    """`messages` without spent steps older than `recent` turns; see the module docstring."""
    users_after = [0] * len(messages)
    count = 0
    for i in range(len(messages) - 1, -1, -1):
        users_after[i] = count
        count += messages[i].role == "user"
    out: list[Message] = []
    left_out: Counter[str] = Counter()
    i = 0
    while i < len(messages):
        message = messages[i]
        if (
            i >= HEAD
            and i + 1 < len(messages)
            and users_after[i + 1] >= recent
            and spent_step(message, messages[i + 1], markers)
        ):
            left_out.update(calls_of(message))
            i += 2
            continue
        if left_out:
            before = out[-1]  # a user message: steps start with the call
            out[-1] = Message(
                before.role, (*before.content, TextContent(digest(left_out))), before.ts
            )
            left_out = Counter()
        out.append(message)
        i += 1
    if left_out:  # only when `recent` is 0: the run reaches the end
        before = out[-1]
        out[-1] = Message(before.role, (*before.content, TextContent(digest(left_out))), before.ts)
    return out
