"""pycline as a person meets it: the installed `pycline` command in a pseudo-terminal of 200×50
with a real `TERM`, its screen kept by a VT100 emulator (pyte), keys typed one line at a time.

The emulator answers the cursor-position requests prompt_toolkit sends, as a terminal does, so the
session runs with its full line editor (completion, Esc Esc, Ctrl-C as a key at a prompt), not the
plain line reader that `TERM=dumb` or a pipe gets.
"""

from __future__ import annotations

import os
import re
import sys
import time
from pathlib import Path

import pexpect
import pyte

from tests.fakes.openai_server import FakeOpenAI

COLUMNS, ROWS = 200, 50
# Anything that prints in colour or moves the cursor, removed for the plain transcript.
_ANSI = re.compile(rb"\x1b(\[[0-9;?<>=]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[@-Z\\-_])")


def pycline_command() -> str:
    """The `pycline` entry point of the environment the tests run in (the README's install)."""
    entry = Path(sys.executable).with_name("pycline")
    assert entry.is_file(), f"no `pycline` command beside {sys.executable}: install the package"
    return str(entry)


def model_flags(server: FakeOpenAI) -> list[str]:
    """The command-line flags that point pycline at a fake OpenAI server."""
    return ["--provider", "openai", "--base-url", server.base_url, "--api-key", "k", "--model", "m"]


def terminal_env(home: Path, extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.pop("NO_COLOR", None)
    env.pop("PYCLINE_PLAIN_INPUT", None)
    for size in ("COLUMNS", "LINES"):  # the pseudo-terminal's own size, not the test runner's
        env.pop(size, None)
    env.update({"PYCLINE_HOME": str(home), "TERM": "xterm-256color", **(extra or {})})
    return env


class Terminal:
    def __init__(
        self,
        args: list[str],
        *,
        home: Path,
        cwd: Path,
        env: dict[str, str] | None = None,
        timeout: float = 60,
        columns: int = COLUMNS,
        rows: int = ROWS,
    ) -> None:
        self.screen = pyte.Screen(columns, rows)
        self._stream = pyte.ByteStream(self.screen)
        self.screen.write_process_input = self._reply  # cursor-position reports
        self.timeout = timeout
        self.child = pexpect.spawn(
            pycline_command(),
            args,
            cwd=str(cwd),
            env=terminal_env(home, env),
            dimensions=(rows, columns),
        )
        self.transcript = b""  # everything printed, without colours and cursor moves
        self._mark = 0
        self.before = ""  # what was printed between the last two matches (as pexpect's)
        self.match: re.Match[str] | None = None  # the last `expect`'s
        self._sent: list[str] = []  # the screen above the cursor when a key was last sent

    def _reply(self, data: str) -> None:
        self.child.send(data.encode())

    def _pump(self, wait: float) -> bool:
        """Read what the program printed within `wait` seconds; False at its end."""
        try:
            data = self.child.read_nonblocking(65536, timeout=wait)
        except pexpect.TIMEOUT:
            return True
        except pexpect.EOF:
            return False
        self._stream.feed(data)
        self.transcript += _ANSI.sub(b"", data).replace(b"\r", b"")
        return True

    # --- what is on the screen ------------------------------------------------------------
    def text(self) -> str:
        return "\n".join(line.rstrip() for line in self.screen.display).rstrip("\n")

    def cursor_line(self) -> str:
        return str(self.screen.display[self.screen.cursor.y]).rstrip()

    def printed(self) -> str:
        """The transcript since the last `expect` match (what scrolled away included)."""
        return self.transcript[self._mark :].decode("utf-8", errors="replace")

    def _until(self, done: object, what: str, timeout: float | None) -> float:
        assert callable(done)
        start = time.monotonic()
        deadline = start + (self.timeout if timeout is None else timeout)
        while not done():
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"waited for {what}; the screen shows:\n{self.text()}")
            if not self._pump(min(left, 0.2)) and not done():
                raise AssertionError(
                    f"pycline ended before {what}; the screen shows:\n{self.text()}"
                )
        return time.monotonic() - start

    def expect(self, pattern: str, *, timeout: float | None = None) -> float:
        """Wait until `pattern` (a regex) is printed after the last match; the seconds waited."""
        regex = re.compile(pattern)
        found: list[re.Match[str]] = []

        def done() -> bool:
            match = regex.search(self.printed())
            if match is not None:
                found.append(match)
            return match is not None

        waited = self._until(done, repr(pattern), timeout)
        self.match = found[-1]
        self.before = self.printed()[: found[-1].start()]
        self._mark += len(self.printed()[: found[-1].end()].encode())
        return waited

    def expect_prompt(self, prompt: str = "Task>", *, timeout: float | None = None) -> float:
        """Wait until the cursor stands after `prompt` on an otherwise empty line, printed since
        the last key was sent (the lines above it changed: a redraw of the same prompt is not
        a new one), ready for typing."""
        waited = self._until(
            lambda: self.cursor_line() == prompt and self._above() != self._sent,
            f"the {prompt!r} prompt",
            timeout,
        )
        self.before = self.printed()
        self._mark = len(self.transcript)
        return waited

    def _above(self) -> list[str]:
        return [line.rstrip() for line in self.screen.display[: self.screen.cursor.y]]

    def on_screen(self, pattern: str) -> bool:
        return re.search(pattern, self.text()) is not None

    # --- keys -------------------------------------------------------------------------------
    def type(self, line: str) -> None:
        """Type a line and press Enter."""
        self.press(line + "\r")

    def press(self, keys: str) -> None:
        self._sent = self._above()
        self.child.send(keys.encode())

    def ctrl_c(self) -> None:
        self._sent = self._above()
        self.child.sendintr()

    def ctrl_d(self) -> None:
        self._sent = self._above()
        self.child.sendeof()

    def wait_exit(self, *, timeout: float | None = None) -> int:
        """Wait until the program ends; its exit status (128 + N when killed by signal N)."""
        self._until(lambda: not self.child.isalive(), "the end", timeout)
        while self._pump(0.05):
            pass
        self.child.close()
        if self.child.signalstatus is not None:
            return 128 + int(self.child.signalstatus)
        return int(self.child.exitstatus or 0)

    def close(self) -> None:
        if self.child.isalive():
            self.child.terminate(force=True)
        self.child.close()
