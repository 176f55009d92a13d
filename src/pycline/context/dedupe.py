"""Replacing earlier copies of a file with a short note (Cline's `applyContextOptimizations`).

A file's content reaches history three ways: a `read_file` result, the final content echoed by
`write_to_file`/`replace_in_file` (`<final_file_content path=…>`), and a mention
(`<file_content path=…>`). Only the latest copy of each file matters to the model; earlier copies
are replaced, the latest one is never touched.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from pycline.context.results import parse_header
from pycline.messages import Message, TextContent
from pycline.prompts import responses

NOTE = "[Older copy of this file removed to save context: the latest copy further down is current.]"

Span = tuple[int, int]  # [start, end) in a block's text

_WRITE_TOOLS = frozenset({"write_to_file", "replace_in_file"})
_FINAL = re.compile(r'<final_file_content path="([^"]*)">(.*)</final_file_content>', re.DOTALL)
_MENTION = re.compile(r'<file_content path="([^"]*)">(.*?)</file_content>', re.DOTALL)
# Results that carry no file content even though the tool was read_file.
_NOT_CONTENT = (
    responses.tool_error("read_file", "").split("\n", 1)[0],
    responses.DENIED,
)


@dataclass(frozen=True, slots=True)
class ReadEdit:
    """Spans of one text block to replace by NOTE; `length` guards against a changed history."""

    message: int
    block: int
    length: int
    spans: tuple[Span, ...]


@dataclass(frozen=True, slots=True)
class Dedupe:
    edits: tuple[ReadEdit, ...]
    chars_saved: int  # may be negative when the removed copies were shorter than the note

    @property
    def updated(self) -> bool:
        return bool(self.edits)

    @property
    def message_indices(self) -> list[int]:
        return sorted({e.message for e in self.edits})


@dataclass(frozen=True, slots=True)
class _Copy:
    path: str
    message: int
    block: int
    span: Span
    done: bool  # already replaced by the note


def find_duplicate_reads(messages: Sequence[Message], start: int = 2) -> Dedupe:
    """Plan the replacement of every copy of a file but the latest, from `messages[start:]`."""
    copies: list[_Copy] = []
    for i in range(max(start, 0), len(messages)):
        message = messages[i]
        if message.role != "user":
            continue
        for j, block in enumerate(message.content):
            if isinstance(block, TextContent):
                copies.extend(_copies_in(block.text, i, j))
    latest: dict[str, _Copy] = {}
    for copy in copies:
        if not copy.done:
            latest[copy.path] = copy  # copies are in conversation order: the last one wins
    spans: dict[tuple[int, int], list[Span]] = {}
    saved = 0
    for copy in copies:
        if copy.done or latest.get(copy.path) is copy:
            continue
        spans.setdefault((copy.message, copy.block), []).append(copy.span)
        saved += copy.span[1] - copy.span[0] - len(NOTE)
    edits = []
    for (i, j), block_spans in sorted(spans.items()):
        block = messages[i].content[j]
        assert isinstance(block, TextContent)
        edits.append(ReadEdit(i, j, len(block.text), tuple(sorted(block_spans))))
    return Dedupe(tuple(edits), saved)


def apply_edits(messages: Sequence[Message], edits: Iterable[ReadEdit]) -> list[Message]:
    """`messages` with the edits applied; edits that no longer fit their block are skipped."""
    out = list(messages)
    by_message: dict[int, list[ReadEdit]] = {}
    for edit in edits:
        by_message.setdefault(edit.message, []).append(edit)
    for i, message_edits in by_message.items():
        if not 0 <= i < len(out):
            continue
        content = list(out[i].content)
        changed = False
        for edit in message_edits:
            if edit.block >= len(content):
                continue
            block = content[edit.block]
            if not isinstance(block, TextContent) or len(block.text) != edit.length:
                continue
            content[edit.block] = TextContent(
                replace_spans(block.text, edit.spans), block.tool_use_id
            )
            changed = True
        if changed:
            out[i] = Message(out[i].role, tuple(content), out[i].ts)
    return out


@lru_cache(maxsize=4096)
def replace_spans(text: str, spans: tuple[Span, ...]) -> str:
    # Cached: the same copies are replaced on every request of a long task, and the same string
    # object back keeps later hashing and comparisons of it cheap.
    parts: list[str] = []
    pos = 0
    for a, b in spans:
        if a < pos or b > len(text):
            continue  # overlapping or out of range: leave the text as it is
        parts.extend((text[pos:a], NOTE))
        pos = b
    parts.append(text[pos:])
    return "".join(parts)


def _copies_in(text: str, message: int, block: int) -> list[_Copy]:
    return [_Copy(path, message, block, span, done) for path, span, done in copies_of(text)]


@lru_cache(maxsize=4096)
def copies_of(text: str) -> tuple[tuple[str, Span, bool], ...]:
    """The file copies in one block's text (cached: history is scanned again on every request)."""
    return tuple((c.path, c.span, c.done) for c in _scan(text, 0, 0))


def _scan(text: str, message: int, block: int) -> list[_Copy]:
    header = parse_header(text)
    if header is not None and header.tool == "read_file":
        copy = _read_result(text, header.arg, header.end, message, block)
        return [copy] if copy is not None else []
    found: list[_Copy] = []
    if header is not None and header.tool in _WRITE_TOOLS:
        match = _FINAL.search(text, header.end)
        if match is not None:
            copy = _tagged(match, message, block)
            if copy is not None:
                found.append(copy)
            text_end = match.start()
        else:
            text_end = len(text)
        found.extend(_mentions(text, 0, text_end, message, block))
    else:
        found.extend(_mentions(text, 0, len(text), message, block))
    return found


def _read_result(text: str, arg: str | None, body: int, message: int, block: int) -> _Copy | None:
    # A path cut short by the header's length limit ("…") cannot be told apart from another file.
    if arg is None or arg.endswith("…"):
        return None
    if text[body:].lstrip().startswith(_NOT_CONTENT):
        return None
    span = _stripped(text, body, len(text))
    if span is None:
        return None
    return _Copy(_key(arg), message, block, span, text[span[0] : span[1]] == NOTE)


def _mentions(text: str, start: int, end: int, message: int, block: int) -> list[_Copy]:
    found = []
    for match in _MENTION.finditer(text, start, end):
        copy = _tagged(match, message, block)
        if copy is not None:
            found.append(copy)
    return found


def _tagged(match: re.Match[str], message: int, block: int) -> _Copy | None:
    span = _stripped(match.string, match.start(2), match.end(2))
    if span is None:
        return None
    done = match.string[span[0] : span[1]] == NOTE
    return _Copy(_key(match.group(1)), message, block, span, done)


def _stripped(text: str, a: int, b: int) -> Span | None:
    """The span without surrounding whitespace, None when nothing is left."""
    while a < b and text[a].isspace():
        a += 1
    while b > a and text[b - 1].isspace():
        b -= 1
    return (a, b) if a < b else None


def _key(path: str) -> str:
    path = path.strip()
    while path.startswith("./"):
        path = path[2:]
    return path
