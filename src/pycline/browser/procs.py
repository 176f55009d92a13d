"""Finding and ending leftover browser processes by a marker in their command line (Linux /proc).

Chromium's helper processes (zygotes, renderers, GPU) can outlive the main process by a moment and
are then re-parented away from us; the unique user-data-dir in every one of their command lines is
the reliable way to find them. Where /proc does not exist the scan finds nothing.
"""

from __future__ import annotations

import asyncio
import os
import signal
import time
from pathlib import Path

_PROC = Path("/proc")


def pids_with_arg(marker: str) -> list[int]:
    """Live processes (other than ours) with `marker` inside one of their arguments."""
    found: list[int] = []
    needle = marker.encode()
    try:
        entries = list(_PROC.iterdir())
    except OSError:  # no /proc (macOS, Windows) or not readable
        return found
    for entry in entries:
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:  # the process ended while we looked, or is not ours to read
            continue
        # A zombie has an empty command line: it is gone, only not yet reaped.
        if needle in cmdline:
            found.append(int(entry.name))
    return found


def kill(pids: list[int]) -> None:
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):  # already gone, or not ours
            continue


async def end_processes_with_arg(marker: str, *, timeout: float = 5.0) -> list[int]:
    """Kill every process carrying `marker` and wait (bounded) until none is left.

    Returns the pids that had to be killed (empty when everything had already exited).
    """
    killed: list[int] = []
    deadline = time.monotonic() + timeout
    while True:
        pids = await asyncio.to_thread(pids_with_arg, marker)
        if not pids or time.monotonic() >= deadline:
            return killed
        kill(pids)
        killed.extend(p for p in pids if p not in killed)
        await asyncio.sleep(0.05)  # a killed process needs a moment to leave /proc
