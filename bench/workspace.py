"""Workspace tools on a synthetic 100,000-file repository, next to plain ripgrep.

Builds the tree in a temporary folder (a .gitignore, an ignored node_modules, nested packages),
then times, as the median of several runs:
  - list_workspace, recursive, capped at 200 (what list_files and the environment details do),
    and with no cap (a full walk with every gitignore rule checked) - next to `rg --files`;
  - search_files for a rare pattern (whole tree searched) - next to `rg PATTERN`;
  - list_code_definition_names on one folder of 90 files (88 Python, top-level only: 50 parsed).
Target: within 1.5x of ripgrep.
"""

from __future__ import annotations

import asyncio
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from pycline.workspace.definitions import list_definitions
from pycline.workspace.ignore import IgnoreRules
from pycline.workspace.listing import list_workspace
from pycline.workspace.ripgrep import ripgrep_path
from pycline.workspace.search import run_search

PATTERN = "needle_[0-9]+"
SOURCE = '''"""Module {n}."""

import os


class Widget{n}:
    def render(self):
        return os.getcwd()


def helper_{n}(x):
    return x * {n}
'''


def build(root: Path, *, files: int = 100_000) -> None:
    """100 packages x 10 modules dirs x 90 files, plus 10,000 ignored files in node_modules."""
    (root / ".gitignore").write_text("node_modules/\n*.log\nbuild/\n", encoding="utf-8")
    tracked = files - 10_000
    per_dir = 90
    n = 0
    while n < tracked:
        folder = root / f"pkg{n // 900:03d}" / f"mod{(n // per_dir) % 10}"
        folder.mkdir(parents=True, exist_ok=True)
        for _ in range(per_dir):
            if n >= tracked:
                break
            name = f"file{n}.log" if n % 50 == 0 else f"file{n}.py"
            text = SOURCE.format(n=n)
            if n % 9_973 == 0:
                text += f"# needle_{n}\n"
            (folder / name).write_text(text, encoding="utf-8")
            n += 1
    for i in range(10_000):
        folder = root / "node_modules" / f"dep{i // 100}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"index{i}.js").write_text(f"// needle_{i}\n", encoding="utf-8")


def median_ms(fn: Callable[[], object], runs: int) -> float:
    fn()  # warm the page cache and lazy imports
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def main(runs: int = 7) -> None:
    rg = ripgrep_path()
    with tempfile.TemporaryDirectory(prefix="pycline-bench-") as tmp:
        root = Path(tmp)
        start = time.perf_counter()
        build(root)
        print(f"built 100,000 files in {time.perf_counter() - start:.1f} s", file=sys.stderr)
        access = IgnoreRules.load(root, command_permissions="")

        def rg_files() -> object:
            return subprocess.run(
                [rg, "--files", "--hidden", "--no-require-git"],
                cwd=root, capture_output=True, check=True,
            )  # fmt: skip

        def rg_search() -> object:
            return subprocess.run(
                [rg, "--hidden", "--no-require-git", "-e", PATTERN],
                cwd=root, capture_output=True, check=True,
            )  # fmt: skip

        def search() -> object:
            return asyncio.run(run_search(root, root, PATTERN, access=access))

        entries, _ = list_workspace(root, recursive=True, limit=10**9, ignore=access)
        rows = [
            ("rg --files (full walk)", median_ms(rg_files, runs), None),
            (
                "list_workspace recursive, cap 200",
                median_ms(lambda: list_workspace(root, recursive=True, ignore=access), runs),
                "rg --files (full walk)",
            ),
            (
                f"list_workspace recursive, no cap ({len(entries):,} entries)",
                median_ms(
                    lambda: list_workspace(root, recursive=True, limit=10**9, ignore=access), runs
                ),
                "rg --files (full walk)",
            ),
            ("rg PATTERN", median_ms(rg_search, runs), None),
            ("search_files PATTERN", median_ms(search, runs), "rg PATTERN"),
            (
                "list_code_definition_names (folder of 90 files)",
                median_ms(lambda: list_definitions(root / "pkg000" / "mod0", access=access), runs),
                None,
            ),
        ]
    baseline = {name: ms for name, ms, _ in rows}
    print(f"| {'operation':<52} | {'median ms':>9} | {'vs ripgrep':>10} |")
    print(f"|{'-' * 54}|{'-' * 11}|{'-' * 12}|")
    for name, ms, versus in rows:
        ratio = f"{ms / baseline[versus]:.2f}x" if versus else ""
        print(f"| {name:<52} | {ms:>9.1f} | {ratio:>10} |")


if __name__ == "__main__":
    main()
