"""How provisioning tells what it is doing: lines, and a bar for long steps."""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TextIO


def _quiet_bar(what: str, done: int, total: int) -> None:
    return None


@dataclass(slots=True)
class Progress:
    line: Callable[[str], None] = lambda text: None
    bar: Callable[[str, int, int], None] = _quiet_bar  # (what, done, total)


@dataclass(slots=True)
class TerminalProgress:
    """Lines on `out`; on a terminal the bar redraws itself, elsewhere it prints every tenth."""

    out: TextIO = field(default_factory=lambda: sys.stderr)
    _last: tuple[str, int] = ("", -1)

    def line(self, text: str) -> None:
        print(text, file=self.out, flush=True)

    def bar(self, what: str, done: int, total: int) -> None:
        share = min(100, done * 100 // total) if total else 100
        if self.out.isatty():
            filled = share // 4
            end = "\n" if share >= 100 else ""
            print(f"\r{what} [{'#' * filled}{'.' * (25 - filled)}] {share:3d}%", end=end,
                  file=self.out, flush=True)  # fmt: skip
            return
        tenth = share // 10
        if (what, tenth) != self._last:
            self._last = (what, tenth)
            print(f"{what}: {share}%", file=self.out, flush=True)

    def progress(self) -> Progress:
        return Progress(line=self.line, bar=self.bar)


def size(n: int) -> str:
    """Bytes in words: 1.1 GB, 450 MB."""
    if n >= 1_000_000_000:
        return f"{n / 1e9:.1f} GB"
    return f"{max(1, round(n / 1e6))} MB"
