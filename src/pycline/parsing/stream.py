"""Incremental parser for replies with XML tool calls; block for block what Cline's
`parseAssistantMessageV2` gives, without re-reading the message on every chunk (SPEC §3).

The rules, as Cline applies them:
- Outside a tool, `<tool_name>` (a known name, no attributes) ends the text before it and opens a
  tool. The text is trimmed and dropped when empty. Any other tag is text.
- Inside a tool, `<param>` (a known name) opens a value that only `</param>` ends; the tool's own
  closing tag is not looked for inside a value. Values are trimmed; a repeated parameter keeps the
  last value. Other text inside a tool is ignored.
- When `</write_to_file>` closes, `content` is re-cut from the first `<content>` to the last
  `</content>` in the tool's body, so a file that itself contains `</content>` survives.
- At the end of the input the open block is partial: trailing text (even of a complete message)
  and an unclosed tool, whose open parameter holds what has arrived so far, trimmed.

Every tag ends in `>`, so the scan only stops at `>` characters (or, inside a value, searches for
that value's closing tag), always from a cursor that never moves back. Each feed() therefore
costs time proportional to the new text plus a look-back of one tag length.
"""

from __future__ import annotations

from pycline.parsing.blocks import AssistantBlock, TextBlock, ToolUseBlock
from pycline.parsing.vocab import (
    AGENT_TOOL_PREFIX,
    JS_WHITESPACE,
    MAX_AGENT_NAME,
    PARAM_NAMES,
    TOOL_NAMES,
    is_tool_name,
)

__all__ = ["StreamingParser", "parse_assistant_message"]

_CONTENT_OPEN = "<content>"
_CONTENT_CLOSE = "</content>"
# A tag's name is never longer than this; a `<` further back than this from a `>` opens no tag.
_LONGEST = max(len(n) for n in TOOL_NAMES | PARAM_NAMES)
_LOOKBACK = max(_LONGEST, len(AGENT_TOOL_PREFIX) + MAX_AGENT_NAME) + 2


def parse_assistant_message(text: str) -> list[AssistantBlock]:
    """Parse a whole (possibly truncated) reply, e.g. one saved in history."""
    parser = StreamingParser()
    parser.feed(text)
    return parser.blocks


class StreamingParser:
    """Feed a reply chunk by chunk; read `blocks` at any time.

    Blocks before the last are complete and shared between reads: treat them as read-only.
    """

    def __init__(self) -> None:
        self._buf = ""
        self._pos = 0  # every index below this has been examined
        self._done: list[AssistantBlock] = []
        self._text_start = 0
        self._tool: ToolUseBlock | None = None  # the open tool; params hold closed values only
        self._tool_start = 0
        self._param: str | None = None
        self._param_start = 0
        self._param_close = ""
        # write_to_file: where the body's first `<content>` and last `</content>` start
        self._scan_pos = 0
        self._first_open = -1
        self._last_close = -1
        # trailing text/value: its start, how far it was scanned, its trimmed bounds
        self._tail_start = -1
        self._tail_scanned = 0
        self._tail_first = -1
        self._tail_end = 0
        self._tail_block: AssistantBlock | None = None
        self._tail_fresh = False

    def feed(self, text: str) -> None:
        if not text:
            return
        # Growing a str held only by a local lets CPython resize it in place; `self._buf += text`
        # would copy the whole reply on every chunk.
        buf = self._buf
        self._buf = ""
        buf += text
        self._buf = buf
        self._advance()
        if self._tool is not None and self._tool.name == "write_to_file":
            self._scan_content(len(buf))
        self._tail_fresh = False

    @property
    def size(self) -> int:
        """How much of the reply has been fed."""
        return len(self._buf)

    @property
    def shape(self) -> tuple[int, int, str | None, int]:
        """The same while only an open tool parameter's value grows (a reader may then wait for
        more before reading `blocks`, which costs the value's length); different after any
        other progress."""
        if self._tool is None or self._param is None:
            return (len(self._done), -1, None, len(self._buf))
        return (len(self._done), self._tool_start, self._param, self._param_start)

    @property
    def open_tool(self) -> tuple[str, str | None] | None:
        """The tool call still open at this point, and its open parameter (None between
        parameters); None outside a call."""
        return None if self._tool is None else (self._tool.name, self._param)

    @property
    def blocks(self) -> list[AssistantBlock]:
        """The parse of everything fed so far; only the last block may be partial."""
        tail = self._tail()
        return [*self._done, tail] if tail is not None else list(self._done)

    def finish(self) -> list[AssistantBlock]:
        """The blocks of the complete reply, none partial: the stream is over, so an unclosed
        tool is as complete as it will get (Cline's loop clears every partial flag here too)."""
        tail = self._tail()
        if tail is None:
            return list(self._done)
        if isinstance(tail, TextBlock):
            return [*self._done, TextBlock(tail.content, partial=False)]
        return [*self._done, ToolUseBlock(tail.name, dict(tail.params), partial=False)]

    # --- scanning -------------------------------------------------------------------------

    def _advance(self) -> None:
        buf = self._buf
        n = len(buf)
        while self._pos < n:
            tool = self._tool
            if tool is not None and self._param is not None:
                close = self._param_close
                at = buf.find(close, max(self._pos - len(close) + 1, self._param_start))
                if at == -1:
                    self._pos = n
                    return
                tool.params[self._param] = _trim(buf[self._param_start : at])
                self._param = None
                # Leave the closing `>` unexamined: if a parameter shares the tool's name, the
                # same tag also closes the tool.
                self._pos = at + len(close) - 1
                continue
            gt = buf.find(">", self._pos)
            if gt == -1:
                self._pos = n
                return
            self._pos = gt + 1
            lt = buf.rfind("<", max(0, gt - _LOOKBACK), gt)
            if lt == -1:
                continue
            name = buf[lt + 1 : gt]
            if tool is None:
                if is_tool_name(name):
                    self._open_tool(name, lt, gt)
            elif name in PARAM_NAMES:
                self._param = name
                self._param_start = gt + 1
                self._param_close = f"</{name}>"
            elif name == "/" + tool.name:
                self._close_tool(tool, lt, gt)

    def _open_tool(self, name: str, lt: int, gt: int) -> None:
        text = _trim(self._buf[self._text_start : lt])
        if text:
            self._done.append(TextBlock(text, partial=False))
        self._tool = ToolUseBlock(name, {}, partial=True)
        self._tool_start = gt + 1
        self._scan_pos = gt + 1
        self._first_open = -1
        self._last_close = -1

    def _close_tool(self, tool: ToolUseBlock, lt: int, gt: int) -> None:
        if tool.name == "write_to_file":
            self._scan_content(lt)
            if self._first_open != -1 and self._last_close > self._first_open:
                start = self._first_open + len(_CONTENT_OPEN)
                tool.params["content"] = _trim(self._buf[start : self._last_close])
        tool.partial = False
        self._done.append(tool)
        self._tool = None
        self._text_start = gt + 1

    def _scan_content(self, upto: int) -> None:
        """Record content tags lying wholly in the tool body before `upto`.

        Tags wholly before `_scan_pos` are already recorded. A tag recorded in an earlier feed
        never overlaps the closing tag, even one that had begun to arrive: both end in `>`.
        """
        if upto <= self._scan_pos:
            return
        buf = self._buf
        if self._first_open == -1:
            lo = max(self._tool_start, self._scan_pos - len(_CONTENT_OPEN) + 1)
            self._first_open = buf.find(_CONTENT_OPEN, lo, upto)
        lo = max(self._tool_start, self._scan_pos - len(_CONTENT_CLOSE) + 1)
        last = buf.rfind(_CONTENT_CLOSE, lo, upto)
        if last != -1:
            self._last_close = last
        self._scan_pos = upto

    # --- the open block -------------------------------------------------------------------

    def _tail(self) -> AssistantBlock | None:
        if not self._tail_fresh:
            self._tail_block = self._build_tail()
            self._tail_fresh = True
        return self._tail_block

    def _build_tail(self) -> AssistantBlock | None:
        tool = self._tool
        if tool is None:
            text = self._trimmed_tail(self._text_start)
            return TextBlock(text, partial=True) if text else None
        params = dict(tool.params)
        if self._param is not None:
            params[self._param] = self._trimmed_tail(self._param_start)
        return ToolUseBlock(tool.name, params, partial=True)

    def _trimmed_tail(self, start: int) -> str:
        """buf[start:] trimmed, scanning only what arrived since the last call for whitespace."""
        if start != self._tail_start:
            self._tail_start = start
            self._tail_scanned = start
            self._tail_first = -1
            self._tail_end = start
        buf = self._buf
        if self._tail_scanned < len(buf):
            kept = buf[self._tail_scanned :].rstrip(JS_WHITESPACE)
            if kept:
                if self._tail_first == -1:
                    self._tail_first = (
                        self._tail_scanned + len(kept) - len(kept.lstrip(JS_WHITESPACE))
                    )
                self._tail_end = self._tail_scanned + len(kept)
            self._tail_scanned = len(buf)
        if self._tail_first == -1:
            return ""
        return buf[self._tail_first : self._tail_end]


def _trim(text: str) -> str:
    return text.strip(JS_WHITESPACE)
