"""`pycline mcp …`: manage MCP servers in `cline_mcp_settings.json` and check they work
(the work is done by `pycline.app.builders.mcp`; this module parses arguments and renders).

    pycline mcp list                          every server, connected to show its status
    pycline mcp add NAME -- COMMAND [ARGS…]   a stdio server
    pycline mcp add NAME --url URL [--type sse|streamableHttp] [--header K=V]…
    pycline mcp remove|enable|disable NAME
    pycline mcp restart NAME                  connect one server and report
    pycline mcp tools NAME                    its tools with their input schemas
    pycline mcp trust                         start this project's .pycline/mcp.json servers
    pycline mcp login NAME                    log in to a remote server (OAuth, in the browser)
    pycline mcp logout NAME                   revoke and forget that login

Edits go to the global settings file; `--project` edits the workspace's `.pycline/mcp.json`.
A project's servers start only once its file is trusted as it is now (see pycline.mcp.trust).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pycline.app.builders import mcp
from pycline.app.builders.mcp import NewServer, ServerState
from pycline.app.settings.home import pycline_home
from pycline.cli.style import style
from pycline.errors import ConfigError, ToolError

CONNECT_TIMEOUT = 30.0
TAIL_LINES = 5


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="pycline mcp", description="Manage MCP servers.")
    parser.add_argument(
        "--cwd", default=".", help="workspace whose .pycline/mcp.json is merged in (default: .)"
    )
    parser.add_argument(
        "--project",
        action="store_true",
        help="edit the workspace's .pycline/mcp.json instead of the global file",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    show = sub.add_parser("list", help="list servers with their status (connects to each)")
    show.add_argument("--json", action="store_true", help="machine-readable output")
    add = sub.add_parser(
        "add",
        help="add a server: NAME -- COMMAND ARGS…, or NAME --url URL",
        description="Add a stdio server (NAME -- COMMAND ARGS…) or a remote one (NAME --url URL).",
    )
    add.add_argument("name")
    add.add_argument("--url", help="URL of a remote (SSE or streamable HTTP) server")
    add.add_argument(
        "--type",
        choices=("sse", "streamableHttp"),
        default="streamableHttp",
        help="remote transport (default: streamableHttp)",
    )
    add.add_argument("--header", action="append", default=[], metavar="K=V", help="HTTP header")
    add.add_argument("--env", action="append", default=[], metavar="K=V", help="stdio env var")
    add.add_argument("--server-cwd", dest="server_cwd", help="working folder of a stdio server")
    add.add_argument("--timeout", type=float, help="seconds per request (default 60)")
    add.add_argument(
        "--auto-approve", action="append", default=[], metavar="TOOL", help="run without asking"
    )
    for name, text in (
        ("remove", "remove a server"),
        ("enable", "enable a server"),
        ("disable", "disable a server"),
        ("restart", "connect to a server and report"),
        ("tools", "list a server's tools and their input schemas"),
        ("logout", "revoke and forget a remote server's login"),
    ):
        sub.add_parser(name, help=text).add_argument("name")
    login = sub.add_parser("login", help="log in to a remote server (OAuth, in your browser)")
    login.add_argument("name")
    login.add_argument(
        "--no-browser",
        action="store_true",
        help="do not open a browser: print the address to open yourself",
    )
    sub.add_parser("trust", help="trust this project's .pycline/mcp.json as it is now")
    return parser


def _pairs(items: Sequence[str], what: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"{what} {item!r}: expected KEY=VALUE")
        out[key.strip()] = value
    return out


def _new_server(ns: argparse.Namespace, command: list[str]) -> NewServer:
    return NewServer(
        command=tuple(command),
        url=ns.url,
        transport=ns.type,
        headers=_pairs(ns.header, "--header") if ns.url else {},
        env=_pairs(ns.env, "--env") if not ns.url else {},
        cwd=None if ns.url else ns.server_cwd,
        timeout=ns.timeout,
        auto_approve=tuple(ns.auto_approve),
    )


def _workspace(ns: argparse.Namespace) -> Path:
    return Path(ns.cwd).expanduser().resolve()


def _edit(ns: argparse.Namespace, command: list[str]) -> int:
    home, workspace = pycline_home(), _workspace(ns)
    try:
        if ns.command == "add":
            server = _new_server(ns, command)
            target = mcp.add_server(home, workspace, ns.name, server, project=ns.project)
        else:
            target = mcp.change_server(home, workspace, ns.name, ns.command, project=ns.project)
    except mcp.DefinedElsewhere as exc:
        flag = "without --project" if ns.project else "with --project"
        print(
            f"pycline mcp: {exc} (it is defined in {exc.file}; run the command {flag})",
            file=sys.stderr,
        )
        return 1
    except ConfigError as exc:
        print(f"pycline mcp: {exc}", file=sys.stderr)
        return 1
    done = {"add": "added", "remove": "removed", "enable": "enabled", "disable": "disabled"}
    print(f"{ns.name}: {done[ns.command]} in {target}")
    return 0


def _trust_project(ns: argparse.Namespace) -> int:
    try:
        request = mcp.trust_project(pycline_home(), _workspace(ns))
    except ConfigError as exc:
        print(f"pycline mcp: {exc}", file=sys.stderr)
        return 1
    print(f"Trusted {request.file} as it is now:")
    for line in request.description:
        print(line)
    print("Its servers start with pycline in this folder; a change to the file needs trust again.")
    return 0


# --- commands that connect ---------------------------------------------------------------------


def _status_line(state: ServerState) -> str:
    colour = {"connected": "green", "error": "red", "disabled": "dim"}.get(state.status, "yellow")
    transport = state.transport or "?"
    tools = f"{len(state.tools)} tools" if state.status == "connected" else ""
    source = " (workspace)" if state.source == "workspace" else ""
    status = style("needs login", "yellow") if state.needs_login else style(state.status, colour)
    return f"{style(state.name, 'bold')}{source}  {transport}  {status}  {tools}"


def _details(state: ServerState) -> list[str]:
    lines = []
    if state.error:
        lines.append(f"  error: {state.error}")
    if state.status == "error" and state.stderr_tail:
        tail = state.stderr_tail.splitlines()[-TAIL_LINES:]
        lines.append("  stderr:")
        lines.extend(f"    {line}" for line in tail)
    return lines


async def _connect(ns: argparse.Namespace, only: str | None) -> int:
    home, workspace = pycline_home(), _workspace(ns)
    if only is None:
        report = await mcp.check_servers(home, workspace, timeout=CONNECT_TIMEOUT)
        return _print_list(ns, report)
    try:
        state = await mcp.check_server(home, workspace, only, timeout=CONNECT_TIMEOUT)
    except ToolError as exc:
        print(f"pycline mcp: {exc}", file=sys.stderr)
        return 1
    return _print_one(ns, state)


def _print_list(ns: argparse.Namespace, report: mcp.ServersReport) -> int:
    for error in report.settings_errors:
        print(style(f"settings: {error}", "red"), file=sys.stderr)
    states = report.servers
    if ns.json:
        print(json.dumps([_state_json(s) for s in states], ensure_ascii=False, indent=1))
        return 0
    if not states:
        print(f"No MCP servers configured ({report.settings_path}).")
        return 0
    for state in states:
        print(_status_line(state))
        for line in _details(state):
            print(line)
    return 0


def _state_json(state: ServerState) -> dict[str, Any]:
    return {
        "name": state.name,
        "transport": state.transport,
        "source": state.source,
        "status": state.status,
        "error": state.error,
        "needs_login": state.needs_login,
        "stderr_tail": state.stderr_tail,
        "tools": [t.name for t in state.tools],
        "resources": len(state.resources),
        "resource_templates": len(state.templates),
    }


def _print_one(ns: argparse.Namespace, state: ServerState) -> int:
    print(_status_line(state))
    for line in _details(state):
        print(line)
    if state.status != "connected":
        return 1
    if ns.command == "tools":
        for tool in state.tools:
            print(f"\n{style(tool.name, 'cyan')}: {tool.description}".rstrip(": "))
            print(json.dumps(tool.input_schema, ensure_ascii=False, indent=2))
        for tpl in state.templates:
            print(f"\nresource template {tpl.uri_template} ({tpl.name})")
        for res in state.resources:
            print(f"\nresource {res.uri} ({res.name})")
    return 0


async def _login(ns: argparse.Namespace) -> int:
    from pycline.app.builders import mcp_login

    def announce(server: str, url: str) -> None:
        verb = "Open this address" if ns.no_browser else "Opening your browser at"
        print(f"{server}: log in to continue. {verb}:\n  {url}", flush=True)

    def no_browser(url: str) -> bool:
        return False

    try:
        state = await mcp_login.login(
            pycline_home(),
            _workspace(ns),
            ns.name,
            announce=announce,
            open_browser=no_browser if ns.no_browser else None,
        )
    except (ToolError, ConfigError) as exc:
        print(f"pycline mcp: {exc}", file=sys.stderr)
        return 1
    if state.status != "connected":
        print(_status_line(state))
        for line in _details(state):
            print(line)
        return 1
    print(
        f"{ns.name}: logged in; {len(state.tools)} tools. The login is kept in pycline's secrets."
    )
    return 0


async def _logout(ns: argparse.Namespace) -> int:
    from pycline.app.builders import mcp_login

    try:
        had, note = await mcp_login.logout(pycline_home(), _workspace(ns), ns.name)
    except (ToolError, ConfigError) as exc:
        print(f"pycline mcp: {exc}", file=sys.stderr)
        return 1
    if not had:
        print(f"{ns.name}: not logged in.")
        return 0
    print(f"{ns.name}: logged out{f' ({note})' if note else ''}.")
    return 0


def run_mcp(argv: list[str]) -> int:
    """Entry point of `pycline mcp`; returns the exit code."""
    args = list(argv)
    command: list[str] = []
    if "--" in args:
        cut = args.index("--")
        args, command = args[:cut], args[cut + 1 :]
    ns = build_parser().parse_args(args)
    if command and ns.command != "add":
        print("pycline mcp: `--` is only for `add NAME -- COMMAND ARGS…`", file=sys.stderr)
        return 2
    if ns.command in ("add", "remove", "enable", "disable"):
        return _edit(ns, command)
    if ns.command == "trust":
        return _trust_project(ns)
    if ns.command == "login":
        return asyncio.run(_login(ns))
    if ns.command == "logout":
        return asyncio.run(_logout(ns))
    only = None if ns.command == "list" else ns.name
    return asyncio.run(_connect(ns, only))
