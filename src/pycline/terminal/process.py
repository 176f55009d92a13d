"""Run one shell command: in a pseudo-terminal, in its own session, with bounded captured output.

A pseudo-terminal makes programs behave as they do for a person (line-buffered output, progress
bars, colours we then strip) instead of switching to their "piped" behaviour. Standard input is
/dev/null, so a program waiting for an answer fails at once instead of hanging until the timeout.
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from pycline.terminal.cleaning import Cleaned, StreamCleaner
from pycline.terminal.collector import OutputCollector
from pycline.terminal.confine import can_scope_abstract_sockets, scoping
from pycline.terminal.groups import group_alive, signal_group, wait_group_gone
from pycline.terminal.sandbox import SandboxPolicy, clean_env, wrap
from pycline.terminal.user_shell import session_shell

OutputSink = Callable[[str], None]

# After the shell exits, how long buffered output may take to arrive before we stop waiting.
DRAIN_SECONDS = 0.5
# Live display stops after this much text; the end is shown when the command finishes.
DISPLAY_LIMIT = 256 * 1024
_READ_SIZE = 65536
_TERMINAL_ROWS, _TERMINAL_COLUMNS = 50, 200


def command_env(
    extra: Mapping[str, str] | None = None, *, base: Mapping[str, str] | None = None
) -> dict[str, str]:
    """The environment of a command: `base` (the user's shell environment; else ours), made fit
    for a pseudo-terminal nobody types into, plus `extra`."""
    env = dict(os.environ if base is None else base)
    # Output is a terminal, so pagers would start and wait for keys that never come.
    env.update({"PAGER": "cat", "GIT_PAGER": "cat", "MANPAGER": "cat", "SYSTEMD_PAGER": ""})
    env["GIT_TERMINAL_PROMPT"] = "0"  # fail instead of asking for credentials nobody can type
    env.setdefault("TERM", "xterm-256color")
    env["COLUMNS"], env["LINES"] = str(_TERMINAL_COLUMNS), str(_TERMINAL_ROWS)
    if extra:
        env.update(extra)
    return env


@dataclass(frozen=True, slots=True)
class Prepared:
    argv: list[str]
    env: dict[str, str]
    preexec: Callable[[], None] | None = None  # run in the child before it becomes argv[0]


async def prepared(
    command: str,
    cwd: Path,
    *,
    env: Mapping[str, str] | None = None,
    sandbox: SandboxPolicy | None = None,
    for_another_spawner: bool = False,
) -> Prepared:
    """How to run `command` in the user's shell environment (POSIX), inside `sandbox` when it
    is on (then without secrets). `for_another_spawner` (an editor's terminal): everything is
    in the argv, the cleaned environment included, since we cannot hand the spawner one."""
    shell = await session_shell(cwd)
    argv, full_env = shell.argv(command), command_env(env, base=shell.env)
    if sandbox is None or not sandbox.enabled:
        return Prepared(argv, full_env)
    files = [(f, f) for f in shell.files()]
    # Off the event loop: the sandbox looks through the home folders it shows (`home_scan`).
    argv = await asyncio.to_thread(
        wrap,
        argv,
        sandbox,
        cwd,
        env=full_env,
        files=files,
        env_in_argv=for_another_spawner,
        scope_in_argv=for_another_spawner,
    )
    scope = None if for_another_spawner or not can_scope_abstract_sockets() else scoping()
    return Prepared(argv, clean_env(full_env), scope)


class _Reader(Protocol):
    eof: asyncio.Event

    def close(self) -> None: ...


class _Decoder:
    """Bytes -> cleaned text, handed to the process's sink."""

    def __init__(self, sink: Callable[[Cleaned], None]) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._cleaner = StreamCleaner()
        self._sink = sink

    def feed(self, data: bytes) -> None:
        self._sink(self._cleaner.feed(self._decoder.decode(data)))

    def finish(self) -> None:
        self._sink(self._cleaner.feed(self._decoder.decode(b"", final=True)))
        self._sink(self._cleaner.finish())


class _PtyReader:
    def __init__(self, fd: int, decoder: _Decoder) -> None:
        self.eof = asyncio.Event()
        self._fd = fd
        self._decoder = decoder
        self._loop = asyncio.get_running_loop()
        os.set_blocking(fd, False)
        self._loop.add_reader(fd, self._readable)

    def _readable(self) -> None:
        # Read a bounded amount per wake-up so a flood of output cannot starve the event loop.
        for _ in range(16):
            try:
                data = os.read(self._fd, _READ_SIZE)
            except BlockingIOError:
                return
            except OSError:  # EIO: every writer closed the terminal, the output is complete
                self.close()
                return
            if not data:
                self.close()
                return
            self._decoder.feed(data)

    def close(self) -> None:
        if self._fd < 0:
            return
        self._loop.remove_reader(self._fd)
        os.close(self._fd)
        self._fd = -1
        self._decoder.finish()
        self.eof.set()


class _PipeReader:
    """Windows has no pseudo-terminal API in the standard library: read a pipe instead."""

    def __init__(self, stream: asyncio.StreamReader, decoder: _Decoder) -> None:
        self.eof = asyncio.Event()
        self._decoder = decoder
        self._task = asyncio.create_task(self._pump(stream))

    async def _pump(self, stream: asyncio.StreamReader) -> None:
        try:
            while data := await stream.read(_READ_SIZE):
                self._decoder.feed(data)
        finally:
            self.close()

    def close(self) -> None:
        if self.eof.is_set():
            return
        self._task.cancel()
        self._decoder.finish()
        self.eof.set()


class ShellProcess:
    """A running (or finished) command. Create with `await ShellProcess.start(...)`."""

    def __init__(self, command: str, cwd: Path, on_output: OutputSink | None) -> None:
        self.command = command
        self.cwd = cwd
        self.on_output = on_output
        self.started_at = time.monotonic()
        self.ended_at: float | None = None
        self.output = OutputCollector()  # everything, bounded: for the tool result
        self._unread = OutputCollector()  # since the last take_new_output()
        self._displayed = 0
        self._activity = asyncio.Event()  # set whenever output arrives or ends
        self._proc: asyncio.subprocess.Process | None = None
        self._reader: _Reader | None = None
        # In a sandbox's pid namespace nothing outlives the shell, whatever its process group.
        self._contained = False

    @classmethod
    async def start(
        cls,
        command: str,
        cwd: Path,
        *,
        on_output: OutputSink | None = None,
        env: Mapping[str, str] | None = None,
        sandbox: SandboxPolicy | None = None,
    ) -> ShellProcess:
        """`sandbox` (POSIX only): run the command inside it (see `terminal.sandbox`);
        SandboxUnavailable when it cannot be set up."""
        self = cls(command, cwd, on_output)
        decoder = _Decoder(self._receive)
        if sys.platform == "win32":
            self._proc = await asyncio.create_subprocess_shell(
                command,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                cwd=cwd,
                env=command_env(env),
                creationflags=subprocess.CREATE_NEW_PROCESS_GROUP,
            )
            assert self._proc.stdout is not None
            self._reader = _PipeReader(self._proc.stdout, decoder)
        else:
            ready = await prepared(command, cwd, env=env, sandbox=sandbox)
            self._contained = sandbox is not None and sandbox.enabled
            self._proc, self._reader = await _spawn_on_pty(ready, cwd, decoder)
        return self

    @property
    def pid(self) -> int:
        assert self._proc is not None
        return self._proc.pid

    @property
    def pgid(self) -> int:
        return self.pid  # the leader of its own session: session id == group id == pid

    @property
    def returncode(self) -> int | None:
        return self._proc.returncode if self._proc is not None else None

    @property
    def duration(self) -> float:
        return (self.ended_at or time.monotonic()) - self.started_at

    def is_running(self) -> bool:
        """True while the shell or anything it started still runs."""
        if self.returncode is None:
            return True
        return sys.platform != "win32" and not self._contained and group_alive(self.pgid)

    def take_new_output(self) -> str:
        """Output since the previous call (bounded, cleaned)."""
        text = self._unread.text()
        self._unread = OutputCollector()
        return text

    async def wait(self, timeout: float | None) -> int | None:
        """The exit code once the shell exits and its output is read; None after `timeout`."""
        assert self._proc is not None and self._reader is not None
        try:
            await asyncio.wait_for(self._proc.wait(), timeout)
        except TimeoutError:
            return None
        self.ended_at = self.ended_at or time.monotonic()
        # Output still buffered in the terminal arrives after the exit; a background child that
        # keeps the terminal open means no end-of-file, hence the bound.
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._reader.eof.wait(), DRAIN_SECONDS)
        return self._proc.returncode

    async def terminate(self, grace: float = 2.0) -> None:
        """Stop the shell and everything it started: SIGTERM, then SIGKILL after `grace`."""
        assert self._proc is not None
        try:
            if sys.platform == "win32":
                await _kill_tree_windows(self.pid)
            else:
                try:
                    if signal_group(self.pgid, signal.SIGTERM):
                        await wait_group_gone(self.pgid, grace)
                finally:
                    # Also runs when we are cancelled while waiting: nothing may be left behind.
                    if group_alive(self.pgid):
                        signal_group(self.pgid, signal.SIGKILL)
                await wait_group_gone(self.pgid, grace)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._proc.wait(), grace)
            if self._reader is not None:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._reader.eof.wait(), DRAIN_SECONDS)
        finally:
            self.ended_at = self.ended_at or time.monotonic()
            self.close()

    def close(self) -> None:
        """Stop reading output (the process itself is not touched)."""
        if self._reader is not None:
            self._reader.close()

    @property
    def output_ended(self) -> bool:
        """True once everything the command wrote has been read."""
        return self._reader is not None and self._reader.eof.is_set()

    async def wait_for_activity(self, timeout: float) -> bool:
        """Wait until new output arrives or the output ends; False after `timeout`."""
        if self.output_ended:
            return True
        self._activity.clear()
        try:
            await asyncio.wait_for(self._activity.wait(), timeout)
        except TimeoutError:
            return False
        return True

    def _receive(self, cleaned: Cleaned) -> None:
        self.output.add(cleaned.lines)
        self._unread.add(cleaned.lines)
        self._activity.set()
        if self.on_output is None or not cleaned.display:
            return
        before = self._displayed
        self._displayed += len(cleaned.display)
        if self._displayed <= DISPLAY_LIMIT:
            self.on_output(cleaned.display)
        elif before <= DISPLAY_LIMIT:
            self.on_output("\n[... more output; showing the end when the command finishes ...]\n")

    def show_end(self, lines: int = 40) -> None:
        """After a display cut short by DISPLAY_LIMIT, show how the output ended."""
        if self.on_output is not None and self._displayed > DISPLAY_LIMIT:
            self.on_output(self.output.last_lines(lines) + "\n")


async def _spawn_on_pty(
    ready: Prepared, cwd: Path, decoder: _Decoder
) -> tuple[asyncio.subprocess.Process, _Reader]:
    import pty

    master, slave = pty.openpty()
    try:
        _configure_terminal(slave)
        proc = await asyncio.create_subprocess_exec(
            *ready.argv,
            stdin=subprocess.DEVNULL,
            stdout=slave,
            stderr=slave,
            cwd=cwd,
            env=ready.env,
            start_new_session=True,
            preexec_fn=ready.preexec,
        )
    except BaseException:
        os.close(master)
        raise
    finally:
        # Only the child may hold the terminal's other end, or end-of-file would never come.
        os.close(slave)
    return proc, _PtyReader(master, decoder)


def _configure_terminal(fd: int) -> None:
    import fcntl
    import struct
    import termios

    size = struct.pack("HHHH", _TERMINAL_ROWS, _TERMINAL_COLUMNS, 0, 0)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, size)
    attrs = termios.tcgetattr(fd)
    attrs[1] &= ~termios.ONLCR  # keep "\n" as is instead of "\r\n"
    attrs[3] &= ~termios.ECHO
    termios.tcsetattr(fd, termios.TCSANOW, attrs)


async def _kill_tree_windows(pid: int) -> None:
    killer = await asyncio.create_subprocess_exec(
        "taskkill",
        "/T",
        "/F",
        "/PID",
        str(pid),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(killer.wait(), 10)
