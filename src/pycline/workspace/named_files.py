"""Workspace files a user's words name: by their path, or by a file name only one file has.

A small model told "Clamp in numbers.go returns the wrong bound" tends to write its edit from what
it imagines the file holds instead of reading it first (Aider, for the same reason, offers to add
the files a message names to the chat). A name is a word with an extension (`numbers.go`,
`src/time.ts`); it counts only when it is a file of the workspace the model may see (the
`.clineignore` holds and the path resolves inside the workspace) and small enough to show whole.
A path written as an `@/` mention is not a name here: the mention already shows it.
"""

from __future__ import annotations

import re
from pathlib import Path, PurePosixPath
from typing import Final

from pycline.workspace.access import AccessRules
from pycline.workspace.confined import NotReadable, resolved_inside
from pycline.workspace.mentions import file_block
from pycline.workspace.suggest import workspace_files

NAME_RE: Final = re.compile(
    r"(?<![\w@/\\.-])((?:[\w.-]+/)*[\w-][\w.-]*\.[A-Za-z0-9]{1,8})(?![\w/\\-])"
)
MAX_FILES: Final = 3
MAX_BYTES: Final = 24_000  # about one page of read_file


def named_files(text: str, root: Path, access: AccessRules) -> list[str]:
    """Up to `MAX_FILES` workspace-relative files `text` names, in the order it names them."""
    found: list[str] = []
    listing: list[str] | None = None
    for word in dict.fromkeys(NAME_RE.findall(text)):
        rel = word.removeprefix("./")
        if not _showable(root, rel, access):
            if "/" in rel:
                continue
            if listing is None:
                listing = workspace_files(root, access)
            same = [f for f in listing if PurePosixPath(f).name == rel]
            if len(same) != 1 or not _showable(root, same[0], access):
                continue
            rel = same[0]
        if rel not in found:
            found.append(rel)
            if len(found) == MAX_FILES:
                break
    return found


def _showable(root: Path, rel: str, access: AccessRules) -> bool:
    path = root / rel
    try:
        if access.blocked(path):
            return False
        real = resolved_inside(path, root)
        return real.is_file() and real.stat().st_size <= MAX_BYTES
    except (NotReadable, OSError, ValueError):
        return False


def attachment(root: Path, files: list[str], access: AccessRules) -> str:
    """The files' content blocks, as an `@/` mention shows a file."""
    return "\n\n".join(file_block(root, rel, access) for rel in files)
