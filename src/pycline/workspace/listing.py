"""Workspace listing for `list_files` and the first environment details (SPEC §2, §6).

Breadth-first, so the top of the tree comes first, and it stops as soon as the cap is reached: a
listing costs the folders it shows, not the size of the repository. `.gitignore` rules (nested
files and `.git/info/exclude`) hide entries; `.clineignore`d entries are shown with a lock and not
opened; heavy folders (dependencies, caches, build output) are shown but not opened, unless the
listing starts inside one.
"""

from __future__ import annotations

import os
import re
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from pycline.workspace.access import AccessRules
from pycline.workspace.gitignore import IgnoreChain, chain_for
from pycline.workspace.ignore import IgnoreRules
from pycline.workspace.names import shown_name

LOCK = "🔒"
DEFAULT_LIMIT = 200

# Folders a recursive listing names but does not open: they are large and rarely hand-written.
HEAVY_DIRS = frozenset(
    {
        "node_modules", "bower_components", "jspm_packages", "__pycache__", ".venv", "venv",
        ".tox", ".nox", ".mypy_cache", ".pytest_cache", ".ruff_cache", ".hypothesis", "dist",
        "build", "target", "out", ".next", ".nuxt", ".svelte-kit", ".turbo", ".parcel-cache",
        ".cache", ".gradle", ".terraform", "Pods", "DerivedData", "vendor", "coverage",
        ".eggs", "site-packages", ".angular", ".expo", ".yarn", ".pnpm-store",
    }
)  # fmt: skip
# Never shown: version-control internals and desktop litter.
NEVER_SHOWN = frozenset({".git", ".hg", ".svn", ".DS_Store", "Thumbs.db"})

TRUNCATION_NOTE = (
    "(File list truncated. Use list_files on specific subdirectories if you need to explore "
    "further.)"
)


@dataclass(frozen=True, slots=True)
class Entry:
    path: str  # relative to the listed folder, forward slashes; folders end with "/"
    is_dir: bool
    blocked: bool = False  # hidden by .clineignore: shown with a lock, never opened


_DIGITS = re.compile(r"(\d+)")


def _natural(name: str) -> tuple[str | int, ...]:
    """Case-insensitive order with numbers compared by value: file2 before file10."""
    return tuple(int(p) if p.isdigit() else p for p in _DIGITS.split(name.casefold()))


def _blocker(root: Path, access: AccessRules) -> Callable[[str, bool], bool]:
    """Whether an entry (relative to `root`) is hidden; without a stat when the kind is known."""
    if isinstance(access, IgnoreRules):
        try:
            rel = root.relative_to(access.root)
        except ValueError:
            rel = None
        if rel is not None:
            prefix = "".join(f"{p}/" for p in rel.parts)
            check = access.snapshot()
            return lambda name, is_dir: check(prefix + name, is_dir)
    return lambda name, is_dir: access.blocked(root / name)


def list_workspace(
    root: str | os.PathLike[str],
    *,
    recursive: bool,
    limit: int = DEFAULT_LIMIT,
    ignore: AccessRules | None = None,
) -> tuple[list[Entry], bool]:
    """Up to `limit` entries under `root` and whether more exist.

    `ignore` defaults to the `.clineignore` of `root` itself.
    """
    base = Path(root).resolve()
    access: AccessRules = ignore if ignore is not None else IgnoreRules.load(base)
    workspace_root = access.root if isinstance(access, IgnoreRules) else None
    is_blocked = _blocker(base, access)
    shown: dict[str, list[Entry]] = {}  # folder -> its entries in order, for the tree display
    count = 0
    queue: deque[tuple[str, IgnoreChain]] = deque([("", chain_for(base, base=workspace_root))])
    truncated = False
    while queue and not truncated:
        rel_dir, parent_chain = queue.popleft()
        folder = base / rel_dir if rel_dir else base
        children = _children(folder)
        if children is None:
            continue
        chain = parent_chain.enter(folder, rel_dir) if ".gitignore" in children else parent_chain
        for name in sorted(children, key=_natural):
            if name in NEVER_SHOWN:
                continue
            is_dir, is_link = children[name]
            rel = f"{rel_dir}/{name}" if rel_dir else name
            if chain.ignored(rel, is_dir=is_dir):
                continue
            if count >= limit:
                truncated = True
                break
            # A link is judged by what it leads to as well: another name for an ignored file
            # is still that file.
            blocked = is_blocked(rel, is_dir) or (is_link and access.blocked(folder / name))
            shown.setdefault(rel_dir, []).append(
                Entry(f"{rel}/" if is_dir else rel, is_dir, blocked)
            )
            count += 1
            if recursive and is_dir and not blocked and not is_link and name not in HEAVY_DIRS:
                queue.append((rel, chain))
    return _tree_order(shown), truncated


def _tree_order(shown: dict[str, list[Entry]]) -> list[Entry]:
    """Each folder followed by its own entries (depth first), siblings in name order."""
    out: list[Entry] = []
    stack = list(reversed(shown.get("", [])))
    while stack:
        entry = stack.pop()
        out.append(entry)
        if entry.is_dir:
            stack.extend(reversed(shown.get(entry.path[:-1], [])))
    return out


def _children(folder: Path) -> dict[str, tuple[bool, bool]] | None:
    """name -> (is_dir, is_symlink) for the entries of `folder`, or None if it cannot be read."""
    try:
        with os.scandir(folder) as it:
            out: dict[str, tuple[bool, bool]] = {}
            for entry in it:
                try:
                    out[entry.name] = (entry.is_dir(), entry.is_symlink())
                except OSError:
                    out[entry.name] = (False, True)
            return out
    except OSError:
        return None


def format_listing(entries: list[Entry], truncated: bool) -> str:
    lines = [f"{LOCK} {shown_name(e.path)}" if e.blocked else shown_name(e.path) for e in entries]
    if truncated:
        lines.append("")
        lines.append(TRUNCATION_NOTE)
    return "\n".join(lines)
