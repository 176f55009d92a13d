"""`pycline ui`: start the server, print its one-line address, open the browser."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import signal
import sys
import webbrowser
from pathlib import Path

PASSWORD_ENV = "PYCLINE_UI_PASSWORD"


def build_parser() -> argparse.ArgumentParser:
    from pycline.app.flags import add_common_flags

    parser = argparse.ArgumentParser(
        prog="pycline ui",
        description="Cline's chat, history, checkpoints and settings in a browser.",
    )
    add_common_flags(parser)  # --cwd and the model flags, as every command has them
    parser.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)"
    )
    parser.add_argument("--port", type=int, default=0, help="port (default: a free one)")
    parser.add_argument("--no-open", action="store_true", help="do not open a browser")
    return parser


def run_ui(argv: list[str]) -> int:
    from pycline.app.flags import apply_flags, workspace_of
    from pycline.errors import ConfigError
    from pycline.web.security import is_loopback

    ns = apply_flags(build_parser().parse_args(argv))
    try:
        cwd = workspace_of(ns)
    except ConfigError as exc:
        print(f"pycline: {exc}", file=sys.stderr)
        return 2
    password = os.environ.get(PASSWORD_ENV) or None
    if not is_loopback(ns.host) and password is None:
        print(
            f"pycline: --host {ns.host} would let other machines reach the agent; set "
            f"{PASSWORD_ENV} to require a password, or keep the default 127.0.0.1.",
            file=sys.stderr,
        )
        return 2
    try:
        return asyncio.run(_serve(ns, cwd, password))
    except KeyboardInterrupt:
        return 130


async def _serve(ns: argparse.Namespace, cwd: Path, password: str | None) -> int:
    from aiohttp import web

    from pycline.app.session import ConfigOverrides, Session
    from pycline.errors import PyclineError
    from pycline.web.security import Guard
    from pycline.web.server import build_app
    from pycline.web.tasks import WebSession

    overrides = ConfigOverrides.from_args(ns)
    try:
        opened = await Session.open(cwd, overrides=overrides)
    except PyclineError as exc:
        print(f"pycline: {exc}", file=sys.stderr)
        return 2
    session = WebSession(opened, overrides)
    if (untrusted := opened.untrusted_mcp_file) is not None:
        print(
            f"pycline: the MCP servers of {untrusted} were not started (the file is not trusted "
            "as it is now); review and trust it in the MCP Servers view.",
            file=sys.stderr,
        )
    guard = Guard(ns.host, ns.port, password=password)
    runner = web.AppRunner(build_app(session, guard), access_log=None, handle_signals=False)
    await runner.setup()
    try:
        await web.TCPSite(runner, ns.host, ns.port).start()
    except OSError as exc:  # the port is taken, or the address is not this machine's
        print(f"pycline: cannot listen on {ns.host}:{ns.port}: {exc.strerror}", file=sys.stderr)
        await session.close()
        await runner.cleanup()
        return 2
    port = runner.addresses[0][1]
    guard.port = port
    shown = ns.host if ":" not in ns.host else f"[{ns.host}]"
    url = f"http://{shown}:{port}/#token={guard.token}"
    print(f"pycline ui: {url}", flush=True)
    if not ns.no_open:
        with contextlib.suppress(webbrowser.Error):
            webbrowser.open(url)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    try:
        await stop.wait()
    finally:
        await session.close()  # every running task is cancelled and saved
        await runner.cleanup()
    print("pycline ui: stopped; tasks saved", file=sys.stderr)
    return 0
