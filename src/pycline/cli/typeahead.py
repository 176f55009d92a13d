"""Typing to a task while it works, in the interactive terminal.

While a task runs and no question is on screen, each line typed (the terminal echoes it as it
is typed) is sent to the task as a message: the task queues it, the screen says so, and it is
delivered at the next turn boundary. `/queue` lists what waits, `/queue edit N TEXT` and
`/queue drop N` change it, `/queue now TEXT` stops the running step and sends TEXT at once.

The terminal's NOFLSH flag is set meanwhile: without it Ctrl-C (which stops the step) would
throw away what was typed and not yet sent, and it reappears at the next prompt instead. The
messages still queued when the step is stopped are offered at that prompt (`leftover`).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import termios
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from pycline.cli.screen import queued_lines
from pycline.commands import CancelQueued, Command, EditQueued, UserMessage
from pycline.events import MessagesQueued

if TYPE_CHECKING:
    from pycline.app.live.handle import TaskHandle

USAGE = "/queue · /queue edit N TEXT · /queue drop N · /queue now TEXT (stops the running step)"


class TypeAhead:
    def __init__(self, fd: int, say: Callable[[str], None]) -> None:
        self.fd = fd
        self.say = say  # a line to the user (usage, the list of queued messages)
        self.handle: TaskHandle | None = None
        self._buffer = b""
        self._reading = False
        self._paused = 0
        self._saved: list[int | list[bytes | int]] | None = None  # the terminal's modes

    @property
    def usable(self) -> bool:
        """Only a terminal is read ahead: piped input holds the answers to questions."""
        try:
            return os.isatty(self.fd)
        except OSError:
            return False

    def start(self, handle: TaskHandle) -> None:
        """Read ahead for `handle`'s task until `stop`."""
        self.handle = handle
        if self._saved is None and self.usable:
            with contextlib.suppress(termios.error):
                self._saved = termios.tcgetattr(self.fd)
                modes = termios.tcgetattr(self.fd)
                modes[3] |= termios.NOFLSH  # lflag: Ctrl-C keeps what was typed
                termios.tcsetattr(self.fd, termios.TCSANOW, modes)
        self._listen()

    def stop(self) -> None:
        self._unlisten()
        self.handle = None
        if self._saved is not None:
            with contextlib.suppress(termios.error):
                termios.tcsetattr(self.fd, termios.TCSANOW, self._saved)
            self._saved = None

    @contextlib.contextmanager
    def paused(self) -> Iterator[None]:
        """A prompt of its own reads the terminal meanwhile (a question, an editor)."""
        self._paused += 1
        self._unlisten()
        try:
            yield
        finally:
            self._paused -= 1
            if self.handle is not None:
                self._listen()

    def leftover(self, handle: TaskHandle) -> str:
        """The messages `handle`'s task never got to, as one text to send again."""
        return "\n\n".join(m.text for m in handle.queued if m.text.strip())

    def _listen(self) -> None:
        if self._reading or self._paused or not self.usable:
            return
        try:
            asyncio.get_running_loop().add_reader(self.fd, self._ready)
        except (PermissionError, NotImplementedError):  # a file, or no selector for it
            return
        self._reading = True

    def _unlisten(self) -> None:
        if self._reading:
            self._reading = False
            with contextlib.suppress(ValueError, OSError):
                asyncio.get_running_loop().remove_reader(self.fd)

    def _ready(self) -> None:
        try:
            data = os.read(self.fd, 65536)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        if not data:
            self._unlisten()  # end of input: the next prompt sees it
            return
        self._buffer += data
        while b"\n" in self._buffer:
            raw, self._buffer = self._buffer.split(b"\n", 1)
            line = raw.decode("utf-8", errors="replace").rstrip("\r")
            if line.strip():
                self._typed(line)

    def _typed(self, line: str) -> None:
        handle = self.handle
        if handle is None:
            return
        words = line.strip().split(maxsplit=2)
        if words[0] != "/queue":
            handle.post(UserMessage(line))
            return
        command = self._queue_command(handle, words[1:])
        if command is not None:
            handle.post(command)

    def _queue_command(self, handle: TaskHandle, words: list[str]) -> Command | None:
        queued = handle.queued
        if not words:
            for text in queued_lines(MessagesQueued(queued)):
                self.say(text)
            return None
        action, rest = words[0], words[1] if len(words) > 1 else ""
        if action == "now" and rest.strip():
            return UserMessage(rest, interrupt=True)
        number, _, text = rest.partition(" ")
        if action in ("edit", "drop") and number.isdigit() and 0 < int(number) <= len(queued):
            message_id = queued[int(number) - 1].message_id
            if action == "drop":
                return CancelQueued(message_id)
            if text.strip():
                return EditQueued(message_id, text)
        self.say(f"usage: {USAGE}")
        return None
