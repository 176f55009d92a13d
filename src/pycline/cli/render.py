"""Rendering pieces shared by the terminal hosts: why a tool failed, command output and tool
results kept to a screenful, and the one-line summary after a task."""

from __future__ import annotations

import re
import time
from collections import deque
from dataclasses import dataclass, field

from pycline.app.services.result_text import for_people
from pycline.events import Event, RequestStarted, Usage

OUTPUT_HEAD = 40  # lines of a command's output shown live
OUTPUT_TAIL = 8  # lines shown from its end once it finishes, when the middle was held back
RESULT_LINES = 12  # lines of an MCP tool's result shown
LINE_WIDTH = 400

_ERROR = re.compile(r"<error>\s*(.*?)\s*</error>", re.S)


def shows_result(tool: str) -> bool:
    """Whether a successful result of `tool` is worth seeing (what an MCP server answered)."""
    from pycline.app.services.tool_catalogue import facts_of

    return facts_of(tool).effect == "mcp"


REASON_LINES = 8  # lines of a failed tool's reason shown


def failure_reason(result: str) -> list[str]:
    """Why a tool failed, as lines to show: the error's first paragraph (what went wrong, with
    the lines it quotes), not the generic "the tool failed" preamble nor the file contents and
    advice that follow for the model."""
    found = _ERROR.search(result)
    text = (found.group(1) if found else result).strip()
    text = for_people(text)  # the user's feedback as theirs, not in the model's tags
    paragraph = text.split("\n\n", 1)[0]
    lines = [line.rstrip()[:LINE_WIDTH] for line in paragraph.splitlines() if line.strip()]
    if not lines:
        return ["failed (no reason given)"]
    if len(lines) > REASON_LINES:
        more = len(lines) - REASON_LINES
        lines = [*lines[:REASON_LINES], f"… {more} more lines (the model sees them all)"]
    return lines


def shown_result(result: str) -> list[str]:
    """A tool result cut to RESULT_LINES lines, with a note of what was left out."""
    lines = result.rstrip().splitlines()
    kept = [line[:LINE_WIDTH] for line in lines[:RESULT_LINES]]
    if len(lines) > RESULT_LINES:
        kept.append(f"… {len(lines) - RESULT_LINES} more lines (the model sees them all)")
    return kept


def cache_note(u: Usage) -> str:
    """` (cache R read / W write)` when the request touched the prompt cache, else ""."""
    if u.cache_read_tokens or u.cache_write_tokens:
        return f" (cache {u.cache_read_tokens} read / {u.cache_write_tokens} write)"
    return ""


def cached_share(reads: int, tokens_in: int) -> str:
    """` (N% from cache)` when part of the input was read from the prompt cache, else ""."""
    if not reads or tokens_in <= 0:
        return ""
    return f" ({100 * reads // tokens_in}% from cache)"


class BoundedOutput:
    """A running command's output: the first lines live, then only a count; the last lines
    once it ends. The model always gets the whole (cleaned) output; this is just the screen."""

    def __init__(self) -> None:
        self._tail: deque[str] = deque(maxlen=OUTPUT_TAIL)
        self._reset()

    def _reset(self) -> None:
        self._lines = 0
        self._hidden = 0
        self._tail.clear()
        self._partial = ""

    def feed(self, text: str) -> str:
        """What to write now for this chunk."""
        out: list[str] = []
        for piece in text.splitlines(keepends=True):
            ended = piece.endswith("\n")
            if self._lines < OUTPUT_HEAD:
                out.append(piece)
                if ended:
                    self._lines += 1
                continue
            self._partial += piece
            if ended:
                self._tail.append(self._partial.rstrip("\n"))
                self._partial = ""
                self._hidden += 1
        return "".join(out)

    def finish(self) -> list[str]:
        """Lines to print when the command ends; resets for the next one."""
        if self._partial:
            self._tail.append(self._partial)
            self._hidden += 1
        shown: list[str] = []
        if self._hidden:
            skipped = self._hidden - len(self._tail)
            if skipped > 0:
                shown.append(f"… {skipped} lines not shown …")
            shown.extend(line[:LINE_WIDTH] for line in self._tail)
        self._reset()
        return shown


@dataclass
class Tally:
    """What a task did, for the line printed when it ends."""

    started: float = field(default_factory=time.monotonic)
    requests: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    cache_reads: int = 0
    cost: float = 0.0

    def observe(self, event: Event) -> None:
        match event:
            case RequestStarted():
                self.requests += 1
            case Usage() as u:
                self.tokens_in += u.input_tokens + u.cache_read_tokens + u.cache_write_tokens
                self.cache_reads += u.cache_read_tokens
                self.tokens_out += u.output_tokens
                self.cost = u.task_cost
            case _:
                pass

    def line(self, files_changed: int | None) -> str:
        seconds = time.monotonic() - self.started
        took = f"{seconds:.0f}s" if seconds < 90 else f"{seconds / 60:.1f} min"
        parts = [took]
        if files_changed is not None:
            parts.append(
                "1 file changed" if files_changed == 1 else f"{files_changed} files changed"
            )
        parts.append("1 request" if self.requests == 1 else f"{self.requests} requests")
        parts.append(
            f"↑{self.tokens_in:,} ↓{self.tokens_out:,} tokens{cached_share(self.cache_reads, self.tokens_in)}"
        )
        parts.append(f"${self.cost:.4f}")
        return " · ".join(parts)
