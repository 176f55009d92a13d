"""Files the model may have meant when it names one that does not exist.

A model that guesses a path (`src/numbers.go` for `numbers.go`) and is told only "not found" tends to
guess the same path again; told the files of that name that do exist, it takes one. Candidates are
files of the workspace the model may see (the `.clineignore` holds), found by name first, then by a
close spelling of the whole path.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath
from typing import Final

from pycline.workspace.access import AccessRules
from pycline.workspace.listing import list_workspace

# How many files are looked at (a big tree is not walked to the end for a hint) and shown.
SCAN_LIMIT: Final = 5_000
SHOWN: Final = 3
# How close a spelling must be (rapidfuzz's 0-100 ratio of the whole relative path).
CLOSE: Final = 80.0


def workspace_files(root: Path, access: AccessRules) -> list[str]:
    """Up to `SCAN_LIMIT` files of the workspace the model may see, relative to `root`."""
    entries, _ = list_workspace(root, recursive=True, limit=SCAN_LIMIT, ignore=access)
    return [e.path for e in entries if not e.is_dir and not e.blocked]


def _same_name(files: list[str], path: str) -> list[str]:
    name = PurePosixPath(path).name
    found = [f for f in files if PurePosixPath(f).name == name and f != path]
    return sorted(found, key=lambda f: (len(f), f))[:SHOWN]


def same_name_files(root: Path, path: str, access: AccessRules) -> list[str]:
    """Other workspace files named as `path` is (relative to `root`), shortest paths first."""
    try:
        return _same_name(workspace_files(root, access), path)
    except OSError:
        return []


def similar_files(root: Path, missing: str, access: AccessRules) -> list[str]:
    """Up to `SHOWN` workspace-relative files that `missing` (relative to `root`) may mean."""
    files = workspace_files(root, access)
    same_name = _same_name(files, missing)
    if same_name:
        return same_name
    from rapidfuzz import fuzz, process, utils

    found = process.extract(
        missing, files, scorer=fuzz.ratio, processor=utils.default_process, limit=SHOWN
    )
    return [f for f, score, _ in found if score >= CLOSE]


def not_found_hint(root: Path, missing: str, access: AccessRules) -> str:
    """' Did you mean …?' for an error message, or '' when nothing is close."""
    try:
        found = similar_files(root, missing, access)
    except OSError:
        return ""
    if not found:
        return ""
    return " Did you mean " + " or ".join(found) + "?"
