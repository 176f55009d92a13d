"""Dropping the oldest part of the conversation (SPEC §8).

`next_truncation_range` and `truncated` reproduce Cline's `getNextTruncationRange` and
`getTruncatedMessages`; the `head` parameter is our addition (see `PAIR_SAFE_HEAD`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, TypeAlias

from pycline.context.results import result_header
from pycline.messages import Content, ImageContent, Message, Role, TextContent

Keep: TypeAlias = Literal["none", "lastTwo", "half", "quarter"]
Range: TypeAlias = tuple[int, int]  # inclusive indices of removed messages

CLINE_HEAD = 2
# Cline keeps the task and the first reply, then removes from the first reply's tool result on,
# which leaves that reply's tool call without its result and the result after the gap without
# its call. Keeping one more message (the first result) makes every removed range run from an
# assistant message to a user message, so each tool call leaves together with its result.
PAIR_SAFE_HEAD = 3

ORPHAN_NOTE = "[The tool call this result answered was removed with older history.]"


def _roles(messages_or_roles: Sequence[Message] | Sequence[str]) -> list[str]:
    return [m if isinstance(m, str) else m.role for m in messages_or_roles]


def next_truncation_range(
    messages_or_roles: Sequence[Message] | Sequence[str],
    current_range: Range | None,
    keep: Keep,
    *,
    head: int = CLINE_HEAD,
) -> Range:
    """The range to remove next: an even number of messages (pairs) after `head` kept ones.

    The result may be empty (end < start) when there is too little to remove.
    """
    roles = _roles(messages_or_roles)
    start_of_rest = current_range[1] + 1 if current_range is not None else head
    rest = max(len(roles) - start_of_rest, 0)
    if keep == "none":
        remove = rest
    elif keep == "lastTwo":
        remove = max(rest - 2, 0)
    elif keep == "half":
        remove = rest // 4 * 2
    else:  # "quarter": keep a quarter, remove three quarters
        remove = rest * 3 // 8 * 2
    end = start_of_rest + remove - 1
    # The last removed message must have the role of the last kept head message, so the message
    # after the gap has the other role and user/assistant alternation survives.
    wanted: Role = "assistant" if head % 2 == 0 else "user"
    if 0 <= end < len(roles) and roles[end] != wanted:
        end -= 1
    return (head, end)


def truncated(messages: Sequence[Message], deleted_range: Range | None) -> list[Message]:
    """`messages` without the range; the task and the first reply are always kept.

    When the gap ends on an assistant message, the tool result right after it has lost its call:
    that result text (and its images) is dropped, other blocks of the message stay.
    """
    if deleted_range is None:
        return list(messages)
    start, end = deleted_range
    keep_head = max(start, CLINE_HEAD)
    out = list(messages[:keep_head]) + list(messages[end + 1 :])
    after = end + 1
    if (
        keep_head <= end
        and after < len(messages)
        and messages[end].role == "assistant"
        and result_header(messages[after]) is not None
    ):
        out[keep_head] = without_tool_result(messages[after])
    return out


def without_tool_result(message: Message) -> Message:
    """The message minus its leading tool-result block and the images that came with it (and,
    after native calls, every further result: their calls were cut with the same turn)."""
    rest = list(message.content[1:])
    while rest and (
        isinstance(rest[0], ImageContent)
        or (isinstance(rest[0], TextContent) and rest[0].tool_use_id is not None)
    ):
        rest.pop(0)
    content: tuple[Content, ...] = tuple(rest) if rest else (TextContent(ORPHAN_NOTE),)
    return Message(message.role, content, message.ts)
