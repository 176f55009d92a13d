"""Bounded capture of command output: the first lines, a rolling tail, and a count of the rest.

A build log's first lines say what ran and its last lines say how it ended; the middle is rarely
worth the model's context. Memory stays bounded however much a command prints.
"""

from __future__ import annotations

from collections import deque


class OutputCollector:
    def __init__(
        self,
        *,
        head_lines: int = 100,
        head_chars: int = 10_000,
        tail_lines: int = 200,
        tail_chars: int = 20_000,
    ) -> None:
        self._head_lines = head_lines
        self._head_chars = head_chars
        self._tail_lines = tail_lines
        self._tail_chars = tail_chars
        self._head: list[str] = []
        self._head_len = 0
        self._head_newlines = 0
        self._tail: deque[str] = deque()
        self._tail_len = 0
        self.total_chars = 0
        self._newlines = 0
        self._ends_open = False  # the last line has no newline yet

    @property
    def total_lines(self) -> int:
        return self._newlines + (1 if self._ends_open else 0)

    def add(self, text: str) -> None:
        if not text:
            return
        self.total_chars += len(text)
        self._newlines += text.count("\n")
        self._ends_open = not text.endswith("\n")
        if self._head_newlines < self._head_lines and self._head_len < self._head_chars:
            text = self._fill_head(text)
        if not text:
            return
        if len(text) > self._tail_chars:
            text = text[-self._tail_chars :]
        self._tail.append(text)
        self._tail_len += len(text)
        while self._tail and self._tail_len - len(self._tail[0]) >= self._tail_chars:
            self._tail_len -= len(self._tail.popleft())

    def _fill_head(self, text: str) -> str:
        piece = text[: self._head_chars - self._head_len]
        cut = -1
        for _ in range(self._head_lines - self._head_newlines):
            cut = piece.find("\n", cut + 1)
            if cut == -1:
                break
        if cut != -1:
            piece = piece[: cut + 1]
        self._head.append(piece)
        self._head_len += len(piece)
        self._head_newlines += piece.count("\n")
        return text[len(piece) :]

    def text(self) -> str:
        """Everything, or the head and the tail around a note of what was left out."""
        head = "".join(self._head)
        tail = "".join(self._tail)[-self._tail_chars :]
        parts = tail.split("\n")
        if len(parts) > self._tail_lines + 1:
            tail = "\n".join(parts[-(self._tail_lines + 1) :])
        omitted_chars = self.total_chars - len(head) - len(tail)
        if omitted_chars <= 0:
            return head + tail
        omitted_lines = max(0, self._newlines - head.count("\n") - tail.count("\n"))
        note = f"[... {omitted_lines} lines ({omitted_chars} characters) omitted ...]"
        return f"{head.rstrip(chr(10))}\n{note}\n{tail}"

    def last_lines(self, count: int) -> str:
        """The end of the output, for a final glimpse when live display was cut short."""
        text = self.text() if not self._tail else "".join(self._tail)
        return "\n".join(text.rstrip("\n").split("\n")[-count:])
