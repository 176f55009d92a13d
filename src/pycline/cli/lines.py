"""Reading lines from the terminal without blocking the event loop.

A thread blocked in `input()` cannot be cancelled, so Ctrl-C would hang the exit; reading the file
descriptor from the loop keeps cancellation immediate.
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from pycline.app.services.text import clean
from pycline.cli import completion

# What `readline` returns when Esc is pressed twice at a prompt (in plain line mode: typed as the
# line's only content), which the task prompt takes as "rewind to a checkpoint".
ESC_ESC = "\x1b\x1b"


class LineReader:
    def __init__(
        self,
        fd: int | None = None,
        *,
        complete_root: Path | None = None,
        commands: Callable[[], Iterable[str]] = tuple,
    ) -> None:
        self.fd = sys.stdin.fileno() if fd is None else fd
        self._buffer = b""
        self._eof = False
        self._session: Any = None
        self.on_interrupt: Callable[[], None] | None = None  # Ctrl-C typed at a prompt
        if complete_root is not None and completion.usable():
            from prompt_toolkit import PromptSession
            from prompt_toolkit.formatted_text import ANSI

            self._ansi = ANSI
            self._session = PromptSession(
                completer=completion.make_completer(complete_root, commands),
                complete_while_typing=False,
                key_bindings=_esc_twice(),
            )

    async def readline(self, prompt: str = "", *, default: str = "") -> str | None:
        """One line without its newline; None at end of input. `default` is the line's text
        to start with (where lines are edited; with plain reading, an empty line takes it)."""
        if self._session is not None:
            try:
                # prompt_toolkit would put its own SIGINT handler in and, on leaving, remove
                # whatever handler there is, the session's included: Ctrl-C would then do
                # nothing for the rest of the session. At its prompt Ctrl-C is a key anyway.
                typed: str = await self._session.prompt_async(
                    self._ansi(prompt), handle_sigint=False, default=default
                )
            except EOFError:
                return None
            except KeyboardInterrupt:
                # prompt_toolkit reads Ctrl-C as a key; treat it as the signal would be, and wait
                # for the cancellation that follows (the step stops, or the session ends).
                if self.on_interrupt is None:
                    raise
                self.on_interrupt()
                await asyncio.get_running_loop().create_future()
            return clean(typed)
        if prompt:
            sys.stdout.write(prompt)
            sys.stdout.flush()
        while b"\n" not in self._buffer and not self._eof:
            await self._fill()
        if b"\n" in self._buffer:
            line, self._buffer = self._buffer.split(b"\n", 1)
            text = line.decode("utf-8", errors="replace").rstrip("\r")
            return text or default
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


def _esc_twice() -> Any:
    from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent

    bindings = KeyBindings()

    @bindings.add("escape", "escape")
    def _(event: KeyPressEvent) -> None:
        event.app.exit(result=ESC_ESC)

    return bindings
