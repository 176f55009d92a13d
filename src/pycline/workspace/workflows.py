"""Workflows: the files a user runs as `/name` (SPEC-FEATURES §3). Every front end lists them
from here and the agent core expands them from here, so one rule decides what exists.

Folders: the workspace's `.clinerules/workflows/` (any depth, any file but hidden ones), then the
global workflows folder; a workspace workflow wins over a global one of the same name. Toggles map
a file's absolute path (or its path relative to its folder) to whether it is on; files not named
are on.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from pycline.workspace.confined import read_confined

MAX_WORKFLOW_CHARS: Final = 100_000
# What the core accepts after the slash; a menu offers only names that can be typed back.
COMMAND_NAME: Final = re.compile(r"[a-zA-Z0-9_.:@-]+")


@dataclass(frozen=True, slots=True)
class Workflow:
    name: str  # the file name: `/deploy.md` runs it, and so does `/deploy` (its stem)
    path: Path
    folder: Path  # the workflows folder it was found in (a read never leaves it)
    description: str

    @property
    def stem(self) -> str:
        return self.path.stem


def workflow_folder(root: Path) -> Path:
    return root / ".clinerules" / "workflows"


def enabled_workflows(
    root: Path,
    global_dir: Path | None,
    *,
    toggles: Mapping[str, bool] | None = None,
    global_toggles: Mapping[str, bool] | None = None,
) -> list[Workflow]:
    """The enabled workflows, workspace ones first."""
    found: list[Workflow] = []
    folders = [(workflow_folder(root), toggles)]
    if global_dir is not None:
        folders.append((global_dir, global_toggles))
    for folder, switches in folders:
        for path in workflow_files(folder):
            if _enabled(path, folder, switches):
                found.append(Workflow(path.name, path, folder, _describe(path, folder)))
    return found


def menu(workflows: Sequence[Workflow], *, taken: Iterable[str] = ()) -> list[Workflow]:
    """One entry per `/stem` a user can type, for a front end's list of commands: the workflow
    that `/stem` runs (see `find`), leaving out stems that name one of `taken` (the front end's
    own commands)."""
    seen = set(taken)
    shown: list[Workflow] = []
    for flow in workflows:
        if flow.stem in seen or not COMMAND_NAME.fullmatch(flow.stem):
            continue
        seen.add(flow.stem)
        chosen = find(flow.stem, workflows)
        if chosen is not None:
            shown.append(chosen)
    return shown


def find(name: str, workflows: Sequence[Workflow]) -> Workflow | None:
    """The workflow `/name` runs: by file name, else the first with that stem."""
    chosen = next((w for w in workflows if w.name == name), None)
    return chosen or next((w for w in workflows if w.stem == name), None)


def read_steps(flow: Workflow) -> str | None:
    """The workflow's text, read now; None when it cannot be read or leads out of its folder."""
    try:
        data = read_confined(flow.path, flow.folder, MAX_WORKFLOW_CHARS * 4)
    except OSError:
        return None
    return data.decode("utf-8", errors="replace")[:MAX_WORKFLOW_CHARS].strip()


def workflow_files(folder: Path) -> list[Path]:
    if not folder.is_dir():
        return []
    try:
        files = [p for p in folder.rglob("*") if p.is_file() and not p.name.startswith(".")]
    except OSError:
        return []
    return sorted(files, key=lambda p: p.relative_to(folder).as_posix().casefold())


def _enabled(path: Path, folder: Path, toggles: Mapping[str, bool] | None) -> bool:
    if not toggles:
        return True
    for key in (str(path), path.relative_to(folder).as_posix()):
        if key in toggles:
            return bool(toggles[key])
    return True


def _describe(path: Path, folder: Path) -> str:
    """The workflow's first non-empty line, without Markdown heading marks."""
    try:
        head = read_confined(path, folder, 4096).decode("utf-8", errors="replace")
    except OSError:
        return "workflow"
    for line in head.splitlines():
        line = line.strip().lstrip("#").strip()
        if line and line != "---":
            return line[:100]
    return "workflow"
