"""`pycline hooks list|trust`: see the hooks that would run, and trust a project's hooks."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from pycline.app.hook_trust import HookTrust, workspace_hook_files
from pycline.storage.paths import pycline_home


def run_hooks(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="pycline hooks")
    parser.add_argument("command", choices=("list", "trust"))
    parser.add_argument("--cwd", default=".", help="the project folder (default: current folder)")
    ns = parser.parse_args(argv)
    home = pycline_home()
    root = Path(ns.cwd).resolve()
    trust = HookTrust(home)
    files = workspace_hook_files(root)
    if ns.command == "trust":
        if not files:
            print(f"No hooks in {root / '.clinerules' / 'hooks'}.")
            return 0
        for file in files:
            trust.trust(file)
            print(f"trusted {file}")
        return 0
    for folder, scope in ((home / "hooks", "global"), (root / ".clinerules" / "hooks", "project")):
        for file in sorted(folder.glob("*")) if folder.is_dir() else []:
            state = _state(file, scope, trust)
            print(f"{scope:8} {file.name:18} {state}  {file}")
    return 0


def _state(file: Path, scope: str, trust: HookTrust) -> str:
    if not os.access(file, os.X_OK):
        return "off (not executable)"
    if scope == "project":
        try:
            trusted = trust.is_trusted(file, file.read_bytes())
        except OSError as exc:
            print(f"pycline hooks: {file}: {exc.strerror}", file=sys.stderr)
            return "unreadable"
        return "on" if trusted else "NOT TRUSTED (pycline hooks trust)"
    return "on"
