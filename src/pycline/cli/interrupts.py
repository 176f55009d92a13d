"""Ctrl-C in the interactive session, as terminal users expect it.

The first press stops what is running (the model's reply, a command, a question) and returns to
the prompt with the task saved; a second press within two seconds of it (the step not yet
stopped, or stopping), or a press at the task prompt, quits. The loop's own SIGINT handler does this, so no KeyboardInterrupt ever lands in the middle
of the core's work.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from pycline.cli.style import style
from pycline.commands import Cancel

if TYPE_CHECKING:
    from pycline.app.sessions.session import TaskHandle

DOUBLE_PRESS = 2.0  # seconds


class Interrupts:
    def __init__(
        self, quit_session: Callable[[], None], *, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._quit = quit_session
        self._clock = clock
        self._last = float("-inf")
        self.handle: TaskHandle | None = None  # the task running now, if any
        self.stopped = False  # the last task ended because the user pressed Ctrl-C

    def start(self, handle: TaskHandle) -> None:
        """A new step runs: its first Ctrl-C stops it, however soon after the last one."""
        self.handle = handle
        self.stopped = False
        self._last = float("-inf")

    def press(self) -> None:
        now = self._clock()
        running = self.handle is not None and not self.handle.done
        if running and now - self._last > DOUBLE_PRESS:
            self._last = now
            self.stopped = True
            assert self.handle is not None
            self.handle.post(Cancel())
            sys.stdout.write(style("\n^C stopping… (Ctrl-C again quits)\n", "yellow"))
            sys.stdout.flush()
            return
        self._quit()

    def install(self) -> bool:
        """Take over SIGINT on the running loop; False where signals cannot be set (Windows)."""
        try:
            asyncio.get_running_loop().add_signal_handler(signal.SIGINT, self.press)
        except (NotImplementedError, RuntimeError):
            return False
        return True

    def uninstall(self) -> None:
        with contextlib.suppress(NotImplementedError, RuntimeError):
            asyncio.get_running_loop().remove_signal_handler(signal.SIGINT)
