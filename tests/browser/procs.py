"""An independent /proc scan for the leftover-process checks (not the code under test)."""

from __future__ import annotations

import os
from pathlib import Path


def _stat(pid: str) -> tuple[str, int] | None:
    """(state, parent pid) of a process, or None when it is gone."""
    try:
        raw = Path(f"/proc/{pid}/stat").read_text(encoding="utf-8", errors="replace")
    except OSError:  # exited while we looked
        return None
    # The command name in parentheses may hold spaces: split after its closing bracket.
    fields = raw[raw.rindex(")") + 2 :].split()
    return fields[0], int(fields[1])


def _cmdline(pid: str) -> str:
    try:
        return (
            Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        )
    except OSError:  # exited while we looked
        return ""


def descendants(root: int | None = None) -> list[str]:
    """Child processes (any depth) of `root` (default: this process), as 'pid cmdline'."""
    parent_of: dict[str, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            stat = _stat(entry.name)
            if stat is not None:
                parent_of[entry.name] = stat[1]
    wanted = {root or os.getpid()}
    found: list[str] = []
    grew = True
    while grew:
        grew = False
        for pid, ppid in parent_of.items():
            if ppid in wanted and int(pid) not in wanted:
                wanted.add(int(pid))
                found.append(f"{pid} {_cmdline(pid)[:120]}")
                grew = True
    return found


def processes_mentioning(marker: str) -> list[str]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and int(entry.name) != os.getpid():
            cmd = _cmdline(entry.name)
            if marker in cmd:
                found.append(f"{entry.name} {cmd[:120]}")
    return found
