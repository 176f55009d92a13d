"""The user's ignore rules as the workspace's readers and the tools see them."""

from __future__ import annotations

from pathlib import Path
from typing import Protocol


class AccessRules(Protocol):
    """The user's ignore rules (`.clineignore`) as the tools see them."""

    def blocked(self, path: Path) -> bool:
        """True when the user has hidden this file or folder from the model."""
        ...

    def command_refusal(self, command: str) -> str | None:
        """Why a command may not run (it reads a hidden file, or a permission rule denies it)."""
        ...


class AllowAll:
    """No ignore rules: every path and command is allowed."""

    def blocked(self, path: Path) -> bool:
        return False

    def command_refusal(self, command: str) -> str | None:
        return None
