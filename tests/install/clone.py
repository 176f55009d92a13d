"""This working tree as `git clone` would give it, changes not yet committed included (the
fresh-install test and bench/install.py start from it)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def clone_working_tree(dest: Path) -> None:
    listed = subprocess.run(
        ["git", "ls-files", "-z", "-co", "--exclude-standard"],
        cwd=REPO,
        capture_output=True,
        check=True,
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        source = REPO / name
        if (name.startswith(".ci/") and name != ".ci/run") or not source.is_file():
            continue  # the CI's own npm folders and caches are not part of a clone
        target = dest / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target)
