"""Condensing (SPEC §8): the model summarises the task so far and history restarts from it.

Triggered by the task loop when the context manager answers "condense" (the `autoCondenseThreshold`
setting, or `useAutoCondense`), or by the user (`/compact`). The summary request is one more model
call, answered with `summarize_task` as Cline's (or with attempt_completion when the work is done).
The new history is the original task (with the files the summary's "Required Files" names, read
fresh through the workspace with the user's ignore rules when reads need no approval), then the
summary, then whatever user turn was waiting to be sent.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from pycline.context.condense import (
    CONDENSE_REQUEST,
    files_to_reread,
    history_from_summary,
    parse_summary,
)
from pycline.context.manager import ContextManager
from pycline.core.streaming import Reply, stream_reply
from pycline.errors import ToolError
from pycline.events import Event
from pycline.messages import Message, TextContent
from pycline.parsing.blocks import ToolUseBlock
from pycline.providers.base import Provider, UsageChunk
from pycline.tools.base import AccessRules
from pycline.workspace.confined import read_confined
from pycline.workspace.paths import Workspace

# Bounds on what a summary may pull back in: it must stay far smaller than what it replaces.
MAX_REREAD_FILES: Final = 8
MAX_REREAD_CHARS: Final = 100_000  # all files together


class CondenseFailed(Exception):
    """The model gave no usable summary; history is left as it was."""


@dataclass(frozen=True, slots=True)
class Condensed:
    history: list[Message]  # the replacement history
    usage: UsageChunk | None  # of the summary request, for accounting
    reply: str  # the model's whole reply
    summary: str
    reread: tuple[str, ...]  # files attached with their current content
    progress: str = ""  # the summary's task_progress checklist
    completion: Reply | None = None  # the model finished the task instead of summarising


async def condense(
    *,
    provider: Provider,
    system: str,
    history: Sequence[Message],
    context: ContextManager,
    workspace: Workspace,
    access: AccessRules,
    reads_allowed: bool = True,
    extra: str = "",
) -> Condensed:
    """Ask for a summary of `history` (as the context manager sends it) and build the new history.

    `reads_allowed`: the user lets reads run without asking, so the files the summary names are
    attached. `extra` (a PreCompact hook's context) follows the summary.

    Raises `StreamFailed` when the request fails and `CondenseFailed` when the reply is empty.
    """
    if not history:
        raise CondenseFailed("There is no conversation to condense yet.")
    sent = context.render(history)
    pending: Message | None = None
    if sent[-1].role == "user":
        # A user turn is waiting (a tool result): ask in it, and send it again after the summary.
        # Its tool results answer calls the summary replaces: they go back as plain text.
        pending = _as_plain(history[-1])
        last = sent[-1]
        request = [
            *sent[:-1],
            Message("user", (*last.content, TextContent(CONDENSE_REQUEST)), last.ts),
        ]
    else:
        request = [*sent, Message.user(CONDENSE_REQUEST)]
    reply = await stream_reply(provider, system, request, _quiet)
    tool = next((b for b in reply.blocks if isinstance(b, ToolUseBlock)), None)
    if tool is not None and tool.name == "attempt_completion":
        return Condensed(list(history), reply.usage, reply.text, "", (), completion=reply)
    summary = _summary(tool, reply.text)
    if not summary:
        raise CondenseFailed("The model returned an empty summary.")
    paths = files_to_reread(summary) if reads_allowed else []
    reread = read_files(paths, workspace, access)
    kept = f"{summary}\n\n{extra}" if extra else summary
    fresh = history_from_summary(history[0], kept, reread)
    if pending is not None:
        fresh.append(pending)
    progress = tool.params.get("task_progress", "") if tool is not None else ""
    return Condensed(fresh, reply.usage, reply.text, summary, tuple(reread), progress)


def read_files(paths: Sequence[str], workspace: Workspace, access: AccessRules) -> dict[str, str]:
    """The current text of the named files; anything outside the workspace, hidden by
    `.clineignore`, missing, binary or unreadable is left out."""
    out: dict[str, str] = {}
    budget = MAX_REREAD_CHARS
    for raw in paths:
        if len(out) >= MAX_REREAD_FILES or budget <= 0:
            break
        try:
            target = workspace.resolve(raw)
        except ToolError:
            continue
        if target.outside or access.blocked(target.path):
            continue
        try:
            # The summary is model text: a listed symlink or FIFO must not lead out of the
            # workspace or block, and a huge file is read only as far as the budget goes.
            data = read_confined(target.path, workspace.root, budget * 4 + 8)
        except OSError:
            continue
        if b"\x00" in data[:8_192]:
            continue  # binary: nothing a summary can use
        text = data.decode("utf-8", errors="replace")
        if len(text) > budget:
            text = text[:budget] + "\n[… truncated: read the file for the rest]"
        budget -= len(text)
        out[target.display] = text
    return out


def _summary(tool: ToolUseBlock | None, text: str) -> str:
    if tool is not None and tool.name == "summarize_task":
        context = tool.params.get("context", "").strip()
        if context:
            return context
    return parse_summary(text)


def _quiet(event: Event) -> None:
    """The summary is not shown as it streams; the front end gets one notice when it is done."""


def _as_plain(message: Message) -> Message:
    content = tuple(
        TextContent(c.text) if isinstance(c, TextContent) and c.tool_use_id else c
        for c in message.content
    )
    return Message(message.role, content, message.ts)
