"""Process groups on POSIX: signal a whole group, and tell whether anything in it still runs.

Every command runs in its own session, so its process group holds the shell and everything it
started (unless a program deliberately leaves with setsid). Killing the group leaves no orphans.
"""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path

_PROC = Path("/proc")


def signal_group(pgid: int, sig: int) -> bool:
    """Send `sig` to every process of the group; False when the group no longer exists."""
    try:
        os.killpg(pgid, sig)
    except ProcessLookupError:
        return False
    except PermissionError:  # the id now belongs to someone else's group: not ours to touch
        return False
    return True


def live_members(pgid: int) -> list[int]:
    """Processes of the group that still run (zombies excluded). Needs /proc (Linux)."""
    members: list[int] = []
    for entry in _PROC.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text(encoding="utf-8", errors="replace")
        except (FileNotFoundError, ProcessLookupError, PermissionError):
            continue  # exited between listing and reading
        # The command name may contain spaces and parentheses; fields resume after the last ")".
        fields = stat[stat.rfind(")") + 2 :].split()
        if len(fields) > 2 and fields[2] == str(pgid) and fields[0] not in ("Z", "X"):
            members.append(int(entry.name))
    return members


def group_alive(pgid: int) -> bool:
    """True while any process of the group still runs."""
    if _PROC.is_dir():
        # kill(-pgid, 0) also succeeds for zombies nobody has reaped yet (some container inits
        # never reap), which would make a dead group look alive.
        return bool(live_members(pgid))
    return signal_group(pgid, 0)


async def wait_group_gone(pgid: int, timeout: float) -> bool:
    """Poll until nothing in the group runs; False if something still does after `timeout`."""
    deadline = time.monotonic() + timeout
    while group_alive(pgid):
        if time.monotonic() >= deadline:
            return False
        await asyncio.sleep(0.01)
    return True
