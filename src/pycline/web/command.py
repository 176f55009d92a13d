"""`pycline ui`: start the server, print its one-line address, open the browser."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import html
import os
import signal
import sys
import tempfile
import threading
import webbrowser
from collections.abc import Callable
from pathlib import Path

PASSWORD_ENV = "PYCLINE_UI_PASSWORD"


def build_parser() -> argparse.ArgumentParser:
    from pycline.app.services.flags import add_common_flags

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
    from pycline.app.services.flags import apply_flags, workspace_of
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


def open_browser(url: str) -> None:
    """Open `url` without holding up the server: the `$BROWSER` command (a text browser, when
    there is no display) may run for as long as the user reads, and `webbrowser` waits for it.
    A daemon thread, so that stopping the server never waits for the browser either."""

    def run() -> None:
        with contextlib.suppress(webbrowser.Error, OSError):
            webbrowser.open(url)

    threading.Thread(target=run, name="open-browser", daemon=True).start()


async def _serve(ns: argparse.Namespace, cwd: Path, password: str | None) -> int:
    from aiohttp import web

    from pycline.app.sessions.session import ConfigOverrides, Session
    from pycline.errors import PyclineError
    from pycline.web.security import Guard, url_host
    from pycline.web.server import build_app
    from pycline.web.tasks import WebSession

    overrides = ConfigOverrides.from_args(ns)
    try:
        opened = await Session.open(cwd, overrides=overrides, front_end="web")
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
    shown = url_host(ns.host)

    def login_url(token: str) -> str:
        return f"http://{shown}:{port}/#token={token}"

    url = login_url(guard.token or guard.issue_token())
    print(f"pycline ui: {url}", flush=True)
    redirect = None if ns.no_open else _open_browser(url)
    loop = asyncio.get_running_loop()
    if _watch_lines(
        loop, lambda: print(f"pycline ui: {login_url(guard.issue_token())}", flush=True)
    ):
        print(
            "pycline ui: each link logs in once, within 2 minutes; press Enter for a new one",
            file=sys.stderr,
        )
    stop = asyncio.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    try:
        await stop.wait()
    finally:
        await session.close()  # every running task is cancelled and saved
        await runner.cleanup()
        if redirect is not None:
            redirect.unlink(missing_ok=True)
    print("pycline ui: stopped; tasks saved", file=sys.stderr)
    return 0


def _open_browser(url: str) -> Path | None:
    """Open the browser on a private file that forwards to `url` (as Jupyter does): the
    browser's command line, which `ps` shows to everyone, then holds no token."""
    from pycline.app.settings.home import RuntimeDirError, runtime_dir

    try:
        folder = runtime_dir()
    except RuntimeDirError:
        return None
    fd, name = tempfile.mkstemp(prefix="ui-open-", suffix=".html", dir=folder)
    quoted = html.escape(url, quote=True)
    with os.fdopen(fd, "w", encoding="utf-8") as out:  # mkstemp makes it 0600
        out.write(
            "<!DOCTYPE html><html><head><meta charset='utf-8'>"
            f"<meta http-equiv='refresh' content='0;url={quoted}'><title>pycline</title></head>"
            f"<body><p><a href='{quoted}'>Open pycline</a></p></body></html>\n"
        )
    path = Path(name)
    open_browser(path.as_uri())
    return path


def _watch_lines(loop: asyncio.AbstractEventLoop, on_line: Callable[[], None]) -> bool:
    """Call `on_line` for each line typed on stdin; False when stdin is nothing to read (or a
    terminal we do not own: reading it in the background would stop the process)."""
    try:
        fd = sys.stdin.fileno()
        if os.isatty(fd) and os.tcgetpgrp(fd) != os.getpgrp():
            return False
    except (OSError, ValueError, AttributeError):
        return False

    def readable() -> None:
        try:
            if os.isatty(fd) and os.tcgetpgrp(fd) != os.getpgrp():
                loop.remove_reader(fd)
                return
            data = os.read(fd, 4096)
        except OSError:
            data = b""
        if not data:
            loop.remove_reader(fd)  # end of input: nothing more will come
            return
        for _ in range(data.count(b"\n")):
            on_line()

    try:
        loop.add_reader(fd, readable)
    except (OSError, ValueError, PermissionError):
        return False  # a regular file or /dev/null cannot be watched: nothing to read later
    return True
