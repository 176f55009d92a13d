"""Which workspace hook files the user has trusted (by exact content), like project MCP files.

A record is for one hook name in one project (the project folder resolved, `.clinerules/hooks/`
not): a repository whose `.clinerules` links to a trusted project's runs that hook in its own
folder, with its own scripts beside it, so it is a different record. A hook file that resolves
outside its project is not run at all (`outside_project`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pycline.core.hooks import HOOK_NAMES
from pycline.mcp.trust import McpTrust
from pycline.workspace.confined import MAX_HOOK_BYTES, read_file

TRUST_FILE_NAME = "trusted_hooks.json"


class HookTrust(McpTrust):
    """The same record as MCP trust (path → SHA-256 of the trusted content), in its own file."""

    def __init__(self, home: Path) -> None:
        super().__init__(home)
        self.path = home / "settings" / TRUST_FILE_NAME

    def key(self, file: Path) -> str:
        hooks = file.expanduser().parent
        project = hooks.parent.parent
        return str(project.resolve() / hooks.parent.name / hooks.name / file.name)


def outside_project(file: Path, project: Path) -> bool:
    """True when the hook file is, or lies in a folder that is, a link out of the project."""
    try:
        return not file.resolve().is_relative_to(project.resolve())
    except (OSError, RuntimeError):
        return True


def workspace_hook_files(workspace: Path) -> list[Path]:
    """The project's hook files that could run (those linked out of it never do)."""
    folder = workspace / ".clinerules" / "hooks"
    return [
        folder / name
        for name in sorted(HOOK_NAMES)
        if (folder / name).is_file() and not outside_project(folder / name, workspace)
    ]


@dataclass(frozen=True, slots=True)
class HookState:
    scope: Literal["global", "project"]
    path: Path
    state: Literal["on", "off", "untrusted", "unreadable", "outside"]


def hook_states(home: Path, workspace: Path) -> list[HookState]:
    """The hook files that would run, the user's first: on, off (not executable), a project's
    not trusted as it is now, or unreadable."""
    trust = HookTrust(home)
    found: list[HookState] = []
    folders: tuple[tuple[Path, Literal["global", "project"]], ...] = (
        (home / "hooks", "global"),
        (workspace / ".clinerules" / "hooks", "project"),
    )
    for folder, scope in folders:
        for file in sorted(folder.glob("*")) if folder.is_dir() else []:
            found.append(HookState(scope, file, _state(file, scope, trust, workspace)))
    return found


def _state(
    file: Path, scope: str, trust: HookTrust, workspace: Path
) -> Literal["on", "off", "untrusted", "unreadable", "outside"]:
    if scope == "project" and outside_project(file, workspace):
        return "outside"
    if not os.access(file, os.X_OK):
        return "off"
    if scope == "project":
        try:
            content = read_file(file, MAX_HOOK_BYTES, whole=True)
        except OSError:
            return "unreadable"
        return "on" if trust.is_trusted(file, content) else "untrusted"
    return "on"
