"""Reading lines from the terminal without blocking the event loop.

A thread blocked in `input()` cannot be cancelled, so Ctrl-C would hang the exit; reading the file
descriptor from the loop keeps cancellation immediate.
"""

from __future__ import annotations

import asyncio
import os
import sys


class LineReader:
    def __init__(self, fd: int | None = None) -> None:
        self.fd = sys.stdin.fileno() if fd is None else fd
        self._buffer = b""
        self._eof = False

    async def readline(self, prompt: str = "") -> str | None:
        """One line without its newline; None at end of input."""
        if prompt:
            sys.stdout.write(prompt)
            sys.stdout.flush()
        while b"\n" not in self._buffer and not self._eof:
            await self._fill()
        if b"\n" in self._buffer:
            line, self._buffer = self._buffer.split(b"\n", 1)
            return line.decode("utf-8", errors="replace").rstrip("\r")
        if self._buffer:
            line, self._buffer = self._buffer, b""
            return line.decode("utf-8", errors="replace")
        return None

    async def _fill(self) -> None:
        loop = asyncio.get_running_loop()
        ready: asyncio.Future[None] = loop.create_future()

        def on_ready() -> None:
            if not ready.done():
                ready.set_result(None)

        try:
            loop.add_reader(self.fd, on_ready)
        except PermissionError:
            # A regular file (stdin redirected from disk) cannot be polled, and never blocks.
            pass
        else:
            try:
                await ready
            finally:
                loop.remove_reader(self.fd)
        data = os.read(self.fd, 65536)
        if data:
            self._buffer += data
        else:
            self._eof = True
