"""`pycline hooks list|trust`: see the hooks that would run, and trust a project's hooks."""

from __future__ import annotations

import argparse
from pathlib import Path

from pycline.app.settings.home import pycline_home
from pycline.app.settings.hook_trust import HookTrust, hook_states, workspace_hook_files


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pycline hooks",
        description="List the hooks with their state, or trust this project's hooks as they are.",
    )
    parser.add_argument("command", choices=("list", "trust"))
    parser.add_argument("--cwd", default=".", help="the project folder (default: current folder)")
    return parser


def run_hooks(argv: list[str]) -> int:
    ns = build_parser().parse_args(argv)
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
    words = {
        "on": "on",
        "off": "off (not executable)",
        "untrusted": "NOT TRUSTED (pycline hooks trust)",
        "unreadable": "unreadable",
        "outside": "NOT RUN (links out of the project)",
    }
    for hook in hook_states(home, root):
        print(f"{hook.scope:8} {hook.path.name:18} {words[hook.state]}  {hook.path}")
    return 0
