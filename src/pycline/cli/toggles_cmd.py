"""`pycline rules|workflows list|enable|disable`: see which rules files and workflows are on, and
switch one. The switches are the user's own (kept in pycline's home, never in the project)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from pycline.app.settings.home import pycline_home
from pycline.app.settings.toggles import Kind, Toggle, switch, toggles


def build_parser(kind: Kind) -> argparse.ArgumentParser:
    what = "rules file" if kind == "rules" else "workflow"
    parser = argparse.ArgumentParser(
        prog=f"pycline {kind}",
        description=f"List the {kind} with their state, or switch a {what} on or off.",
    )
    parser.add_argument("command", choices=("list", "enable", "disable"))
    parser.add_argument(
        "name",
        nargs="?",
        help=(
            "the rules file's path (relative to the project or to the global rules folder)"
            if kind == "rules"
            else "the workflow's name (`deploy`, `deploy.md`) or path"
        ),
    )
    parser.add_argument("--cwd", default=".", help="the project folder (default: current folder)")
    return parser


def run_toggles(kind: Kind, argv: list[str]) -> int:
    parser = build_parser(kind)
    ns = parser.parse_args(argv)
    what = "rules file" if kind == "rules" else "workflow"
    home = pycline_home()
    root = Path(ns.cwd).resolve()
    if ns.command == "list":
        found = toggles(home, root, kind)
        if not found:
            print(f"No {kind} in {root} or {home / kind}.")
        for t in found:
            print(_line(t))
        return 0
    if not ns.name:
        parser.error(f"{ns.command} needs the {what}'s name")
    try:
        switched = switch(home, root, kind, ns.name, ns.command == "enable")
    except KeyError:
        print(f"pycline: no {what} called {ns.name!r} (see `pycline {kind} list`)", file=sys.stderr)
        return 1
    for t in switched:
        state = "on" if ns.command == "enable" else "off"
        print(f"{state:3} {_scope(t):6} {t.name}")
    return 0


def _scope(t: Toggle) -> str:
    return "global" if t.is_global else "local"


def _line(t: Toggle) -> str:
    return f"{'on' if t.on else 'off':3} {_scope(t):6} {t.name:30} {t.path}"
