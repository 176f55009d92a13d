"""Recognising tool results in history.

A tool result is a user message whose first text block starts with `[tool for 'arg'] Result:`
(see `responses.tool_header` and `tools.base.describe`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pycline.messages import Message, TextContent

_HEADER = re.compile(r"\[([A-Za-z_][\w-]*)(?: for '(.*)')?\] Result:")
# A tool's error, or a command that failed (`tools.command` states its exit code up front).
_FAILED = re.compile(r"<error>|\((?:exit code [1-9]\d*|killed by signal \d+)")


@dataclass(frozen=True, slots=True)
class ResultHeader:
    tool: str
    arg: str | None
    end: int  # offset just past the header line (including its newline, when there is one)


def parse_header(text: str) -> ResultHeader | None:
    """The header at the very start of `text`, if it is a tool result."""
    line_end = text.find("\n")
    first = text if line_end == -1 else text[:line_end]
    match = _HEADER.fullmatch(first)
    if match is None:
        return None
    end = len(text) if line_end == -1 else line_end + 1
    return ResultHeader(match.group(1), match.group(2), end)


def result_header(message: Message) -> ResultHeader | None:
    """The header of a tool-result message (checked on its first block only)."""
    if message.role != "user" or not message.content:
        return None
    first = message.content[0]
    return parse_header(first.text) if isinstance(first, TextContent) else None


def looks_failed(body: str) -> bool:
    """The result's body (after its header) reports an error or a failed command."""
    return _FAILED.search(body[:400]) is not None
