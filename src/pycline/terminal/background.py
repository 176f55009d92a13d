"""Commands that keep running while the task goes on (dev servers, watchers).

The task owns one registry. A process enters it either by `start` or when `execute_command` hands
over a command that outlived its timeout. Its output keeps being read (bounded), so a later turn
can report what is new, and `stop_all` at the end of the task leaves nothing running.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from pycline.terminal.process import ShellProcess


@dataclass(frozen=True, slots=True)
class BackgroundInfo:
    id: int
    command: str
    cwd: Path
    pid: int
    running: bool
    exit_code: int | None
    seconds: float


class BackgroundProcesses:
    def __init__(self) -> None:
        self._processes: dict[int, ShellProcess] = {}
        self._next_id = 1

    async def start(self, command: str, cwd: Path, *, env: Mapping[str, str] | None = None) -> int:
        """Start `command` in the background; returns its id in this registry."""
        return self.adopt(await ShellProcess.start(command, cwd, env=env))

    def adopt(self, process: ShellProcess) -> int:
        """Take over a process that is already running; its output is no longer shown live."""
        process.on_output = None
        process.take_new_output()  # what was produced so far was reported by whoever started it
        process_id = self._next_id
        self._next_id += 1
        self._processes[process_id] = process
        return process_id

    def get(self, process_id: int) -> ShellProcess:
        """The process itself (wait for it, read its full output). KeyError if unknown."""
        return self._processes[process_id]

    def list(self) -> tuple[BackgroundInfo, ...]:
        return tuple(
            BackgroundInfo(
                id=pid,
                command=p.command,
                cwd=p.cwd,
                pid=p.pid,
                running=p.is_running(),
                exit_code=p.returncode,
                seconds=p.duration,
            )
            for pid, p in self._processes.items()
        )

    def new_output(self, process_id: int) -> str:
        """Cleaned output since the previous look ("" when nothing new). KeyError if unknown."""
        return self._processes[process_id].take_new_output()

    async def wait_for_output(self, process_id: int, contains: str, *, timeout: float) -> str:
        """New output up to the moment `contains` appears in it, the output ends, or `timeout`.

        Check the result for `contains` to tell which. Consumes the output like `new_output`.
        """
        process = self._processes[process_id]
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        seen = ""
        while True:
            seen += process.take_new_output()
            if contains in seen or process.output_ended:
                return seen
            remaining = deadline - loop.time()
            if remaining <= 0 or not await process.wait_for_activity(remaining):
                return seen + process.take_new_output()

    async def stop(self, process_id: int, *, grace: float = 2.0) -> None:
        """Stop one process and everything it started. KeyError if unknown."""
        process = self._processes.pop(process_id)
        await process.terminate(grace)

    async def stop_all(self, *, grace: float = 2.0) -> None:
        """Stop every process group; call when the task ends or the program exits."""
        processes = [*self._processes.values()]
        self._processes.clear()
        await asyncio.gather(*(p.terminate(grace) for p in processes))

    def __len__(self) -> int:
        return len(self._processes)
