"""What the / and @ menus offer in every front end: Cline's commands (the agent core expands
them), the enabled workflows (one named like a command does not hide it), the workspace's files."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

from pycline.core.commands import BUILTINS
from pycline.workspace.workflows import Workflow, menu

__all__ = ["CLINE_COMMANDS", "Workflow", "find_files", "workflow_menu"]

CLINE_COMMANDS = BUILTINS  # /newtask, /smol, /newrule, /deep-planning, …


def workflow_menu(found: Sequence[Workflow], *, taken: Iterable[str]) -> list[Workflow]:
    """One entry per `/stem` a user can type among the enabled workflows `found`
    (`app.toggles.enabled_workflows`), less those named like a command in `taken`."""
    return menu(found, taken=taken)


def find_files(root: Path, query: str, *, limit: int = 50) -> list[dict[str, str]]:
    """Files and folders for the @ menu, best fuzzy matches first (ignore rules respected)."""
    from rapidfuzz import fuzz, process

    from pycline.workspace.ignore import IgnoreRules

    rules = IgnoreRules.load(root)
    entries: list[str] = []
    skip = {".git", "node_modules", ".venv", "__pycache__"}
    for path in _walk(root, skip, budget=20_000):
        if not rules.blocked(path):
            entries.append(path.relative_to(root).as_posix() + ("/" if path.is_dir() else ""))
    if query:
        ranked = process.extract(query, entries, scorer=fuzz.WRatio, limit=limit)
        names = [name for name, score, _ in ranked if score > 40]
    else:
        names = sorted(entries, key=lambda e: (e.count("/"), e))[:limit]
    return [{"path": n, "type": "folder" if n.endswith("/") else "file"} for n in names]


def _walk(root: Path, skip: set[str], *, budget: int) -> list[Path]:
    found: list[Path] = []
    stack = [root]
    while stack and len(found) < budget:
        folder = stack.pop()
        try:
            children = sorted(folder.iterdir())
        except OSError:
            continue
        for child in children:
            if child.name in skip or child.is_symlink():
                continue
            found.append(child)
            if child.is_dir():
                stack.append(child)
    return found
