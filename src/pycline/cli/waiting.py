""" "waiting for the model… 4s" on the status line while a request has produced nothing yet."""

from __future__ import annotations

import asyncio
import sys
import time
from typing import TextIO

from pycline.cli.style import style

TICK = 1.0


class Waiting:
    """Shown between a request going out and its first token; erased as soon as anything comes.

    Only on a terminal: piped output never gets carriage-return animation.
    """

    def __init__(self, out: TextIO = sys.stdout, *, label: str = "waiting for the model") -> None:
        self.out = out
        self.label = label
        self._ticker: asyncio.Task[None] | None = None
        self._shown = 0  # width of the text on the line now

    def start(self) -> None:
        if self._ticker is not None or not self.out.isatty():
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        self._ticker = loop.create_task(self._tick(time.monotonic()))

    def stop(self) -> None:
        if self._ticker is None:
            return
        self._ticker.cancel()
        self._ticker = None
        if self._shown:
            self.out.write("\r" + " " * self._shown + "\r")
            self.out.flush()
            self._shown = 0

    async def _tick(self, since: float) -> None:
        while True:
            text = f"{self.label}… {time.monotonic() - since:.0f}s (Ctrl-C stops)"
            self.out.write("\r" + style(text, "dim"))
            self.out.flush()
            self._shown = len(text)
            await asyncio.sleep(TICK)
