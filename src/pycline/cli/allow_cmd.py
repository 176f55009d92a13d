"""`pycline config allow list|add|remove`: the "always allow" command rules of a workspace.

They live in pycline's home, keyed by the workspace's resolved path; a repository's own files
never add any.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from pycline.errors import ConfigError


def add_allow_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    allow = sub.add_parser(
        "allow",
        help="commands always allowed in a workspace (list, add, remove)",
        description=(
            "Rules are a program and subcommand (`npm test`, `git status`) or a program alone "
            "(`pytest`); a command line runs without asking when every command in it matches a "
            "rule. Kept per workspace in pycline's home, never in the repository."
        ),
    )
    allow.add_argument("--cwd", default=".", help="the workspace (default: current folder)")
    verbs = allow.add_subparsers(dest="allow_action", required=True, metavar="ACTION")
    listing = verbs.add_parser("list", help="the rules of this workspace")
    listing.add_argument("--all", action="store_true", help="every workspace's rules")
    verbs.add_parser("add", help="always allow a command").add_argument("rule", nargs="+")
    verbs.add_parser("remove", help="forget a rule").add_argument("rule", nargs="+")


def run_allow(ns: argparse.Namespace) -> int:
    from pycline.app.settings.allow_rules import (
        add_rule,
        all_rules,
        remove_rule,
        workspace_rules,
    )
    from pycline.app.settings.home import pycline_home

    home = pycline_home()
    cwd = Path(ns.cwd).expanduser().resolve()
    if not cwd.is_dir():
        raise ConfigError(f"--cwd {ns.cwd}: not a folder")
    rule = " ".join(getattr(ns, "rule", None) or [])
    match ns.allow_action:
        case "list":
            if ns.all:
                for workspace, rules in all_rules(home).items():
                    print(f"# {workspace}")
                    for each in rules:
                        print(each)
                return 0
            rules = workspace_rules(home, cwd)
            print(f"# {cwd}" + ("" if rules else " (no rules)"))
            for each in rules:
                print(each)
            return 0
        case "add":
            try:
                added = add_rule(home, cwd, rule)
            except ValueError as exc:
                raise ConfigError(str(exc)) from exc
            print(f"`{added}` is always allowed in {cwd}")
            return 0
        case "remove":
            if not remove_rule(home, cwd, rule):
                raise ConfigError(f"no rule `{rule}` in {cwd} (see `pycline config allow list`)")
            print(f"removed `{rule}` from {cwd}")
            return 0
    raise ConfigError(f"unknown action {ns.allow_action!r}")
