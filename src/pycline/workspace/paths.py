"""Path resolution. Every path a model names is resolved here, and escapes are flagged."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from pycline.errors import ToolError

# Linux's limits (PATH_MAX, NAME_MAX); longer paths fail in every system call.
MAX_PATH_CHARS = 4_096
MAX_NAME_BYTES = 255


@dataclass(frozen=True, slots=True)
class ResolvedPath:
    path: Path  # absolute, symlinks resolved
    display: str  # relative to the workspace when inside it, else absolute, with forward slashes
    outside: bool  # not inside the workspace (after resolving `..` and symlinks)


@dataclass(frozen=True, slots=True)
class Workspace:
    root: Path

    @staticmethod
    def at(root: str | os.PathLike[str]) -> Workspace:
        return Workspace(Path(root).expanduser().resolve())

    def resolve(self, path: str) -> ResolvedPath:
        raw = path.strip()
        if not raw:
            raise ToolError("The path is empty.")
        if "\x00" in raw:
            raise ToolError(f"The path {raw!r} contains a NUL byte.")
        if len(raw) > MAX_PATH_CHARS or any(
            len(part.encode("utf-8", "surrogateescape")) > MAX_NAME_BYTES for part in raw.split("/")
        ):
            raise ToolError(
                f"The path {raw[:80]!r}… is too long ({len(raw):,} characters); no file system "
                "accepts it."
            )
        candidate = Path(os.path.expanduser(raw))
        if not candidate.is_absolute():
            candidate = self.root / candidate
        # strict=False: the file may not exist yet (write_to_file), but existing parts are resolved,
        # so a symlink that points out of the workspace is caught.
        try:
            resolved = candidate.resolve(strict=False)
        except (OSError, RuntimeError) as exc:  # a symlink loop, a name too long
            raise ToolError(f"The path {raw[:200]!r} cannot be resolved: {exc}") from None
        try:
            rel = resolved.relative_to(self.root)
        except ValueError:
            return ResolvedPath(resolved, resolved.as_posix(), outside=True)
        display = rel.as_posix() if rel.parts else "."
        return ResolvedPath(resolved, display, outside=False)
