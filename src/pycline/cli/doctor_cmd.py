"""`pycline doctor`: print what works here and what to do about what does not (the checks
themselves are `pycline.app.doctor`)."""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import textwrap
from dataclasses import replace
from pathlib import Path

from pycline.app.doctor import Check, Report, run_checks
from pycline.app.sessions.session import ConfigOverrides
from pycline.app.settings.home import pycline_home
from pycline.cli.common import count, workspace_dir
from pycline.cli.notices import fit_path
from pycline.cli.style import style

_MARKS = {"ok": ("✓", "green"), "warn": ("!", "yellow"), "fail": ("✗", "red"), "off": ("-", "dim")}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pycline doctor",
        description="Check what pycline can use here: the install, the model (reachable, key "
        "valid, context window), the sandbox, the browser, the language servers for this "
        "folder's languages, "
        "ripgrep, git, MCP servers and the data folder; each problem with a one-line fix. "
        "Exits 1 when something this folder needs is broken.",
    )
    parser.add_argument("--json", action="store_true", help="one JSON object, for scripts")
    parser.add_argument("--cwd", default=".", help="the project folder (default: current folder)")
    parser.add_argument("--provider", help="check this provider instead of the configured one")
    parser.add_argument("--model", help="check this model")
    parser.add_argument("--base-url", help="check this API base URL")
    parser.add_argument("--api-key", help="check this key")
    parser.add_argument("--profile", help="check a model profile from the settings")
    return parser


def run_doctor(argv: list[str]) -> int:
    ns = build_parser().parse_args(argv)
    workspace = workspace_dir(ns)
    report = asyncio.run(run_checks(pycline_home(), workspace, ConfigOverrides.from_args(ns)))
    if ns.json:
        print(json.dumps(report.to_json(), indent=2))
    else:
        print(render(report, width=shutil.get_terminal_size((100, 24)).columns))
    return 1 if report.broken else 0


def render(report: Report, *, width: int = 100) -> str:
    names = max(len(c.name) for c in report.checks)
    head = f"{report.version} · {report.python} · "
    where = fit_path(Path(report.workspace), width - len(head) - 1)
    lines = [style(head + where, "bold")]
    for check in report.checks:
        lines.extend(_lines(_at_home(check), names, width))
    broken = [c for c in report.checks if c.status == "fail"]
    warned = [c for c in report.checks if c.status == "warn"]
    summary = (
        f"{count(len(broken), 'problem')} this folder needs fixed"
        if broken
        else "everything this folder needs works"
    )
    if warned:
        summary += f"; {count(len(warned), 'thing')} missing or off"
    lines.append(style(f"{summary} ({report.seconds:.1f}s)", "red" if broken else "dim"))
    return "\n".join(lines)


def _at_home(check: Check) -> Check:
    """Paths in the home folder written with ~, as people read them (JSON keeps them whole)."""
    home = str(Path.home()) + "/"
    return replace(
        check, detail=check.detail.replace(home, "~/"), fix=check.fix.replace(home, "~/")
    )


def _lines(check: Check, names: int, width: int) -> list[str]:
    mark, colour = _MARKS[check.status]
    indent = " " * (names + 4)
    room = max(width - 1 - len(indent), 30)
    detail = textwrap.wrap(check.detail, room) or [""]
    out = [style(mark, colour) + f" {check.name:<{names}}  " + detail[0]]
    out += [indent + line for line in detail[1:]]
    if check.fix:
        out += [indent + style(line, "cyan") for line in textwrap.wrap(f"fix: {check.fix}", room)]
    return out
