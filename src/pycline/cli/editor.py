"""Let the user change a proposed file in their own editor before it is written."""

from __future__ import annotations

import asyncio
import contextlib
import os
import shlex
import tempfile
from pathlib import Path


def editor_command() -> list[str]:
    return shlex.split(os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi")


async def edit_text(content: str, path: str) -> str | None:
    """The text after the user edited it in $VISUAL/$EDITOR; None when the editor failed."""
    fd, name = tempfile.mkstemp(prefix="pycline-", suffix=Path(path).suffix or ".txt")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            fh.write(content)
        try:
            proc = await asyncio.create_subprocess_exec(*editor_command(), name)
        except OSError:  # no such editor
            return None
        if await proc.wait() != 0:
            return None
        return Path(name).read_text(encoding="utf-8")
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(name)
