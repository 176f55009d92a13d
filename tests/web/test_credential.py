"""The UI's credential is bound to the one origin it was issued for, and the start token is
single-use, short-lived and never in another process's command line.

A dev server the agent started (reachable: the network is shared) is a page the user's browser
visits on another local port. Cookies are not scoped to a port, so a session cookie went there
too, and replaying it switched auto-approve on and the sandbox off. The browser is opened on a
local redirect file (as Jupyter does), so the token is not in the browser's argv for `ps`."""

from __future__ import annotations

import http.server
import json
import os
import stat
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.web.conftest import complete
from tests.web.test_security import request


class _DevServer(http.server.ThreadingHTTPServer):
    """A stand-in for a dev server on another local port: it keeps what browsers send it."""

    def __init__(self) -> None:
        self.seen: list[dict[str, str]] = []
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                outer.seen.append({k.lower(): v for k, v in self.headers.items()})
                body = b"<html><body>dev server</body></html>"
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        super().__init__(("127.0.0.1", 0), Handler)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/"


@pytest.fixture
def dev_server() -> Iterator[_DevServer]:
    server = _DevServer()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


def test_another_local_server_the_browser_visits_gets_nothing_that_opens_the_ui(
    start_ui, new_page, dev_server, isolated_home
):
    ui = start_ui([complete()])
    page = new_page()
    page.goto(ui.url)
    page.wait_for_selector("textarea")  # logged in: the chat is there
    page.goto(dev_server.url)  # the user looks at the app the agent is building
    page.wait_for_selector("text=dev server")
    assert dev_server.seen, "the browser did not reach the dev server"
    stolen = {k: v for k, v in dev_server.seen[-1].items() if k in ("cookie", "authorization")}
    # Replayed as any program can: with the UI's own Host and Origin.
    forged = {**stolen, "Origin": ui.base, "Content-Type": "application/json"}
    widen = {"autoApprove": {"yolo": True, "executeAllCommands": True}}
    assert (
        request(ui, "POST", "/api/settings", headers=forged, body=json.dumps(widen)).status == 401
    )
    off = {"file": {"sandbox": "off"}}
    assert (
        request(ui, "POST", "/api/settings/file", headers=forged, body=json.dumps(off)).status
        == 401
    )
    assert request(ui, "GET", "/api/settings", headers=stolen).status == 401
    settings = isolated_home / "settings" / "settings.json"
    assert not settings.exists() or "yolo" not in settings.read_text(encoding="utf-8")
    # The page itself still works after a reload (its credential stays with its origin).
    page.goto(ui.base + "/")
    page.wait_for_selector("textarea")


def test_the_start_token_works_once(start_ui):
    ui = start_ui([complete()])
    url = ui.url
    token = url.split("#token=", 1)[1]
    headers = {"Content-Type": "application/json", "Origin": ui.base}
    body = json.dumps({"token": token})
    first = request(ui, "POST", "/api/login", headers=headers, body=body)
    assert first.status == 200
    session = json.loads(first.read())["session"]
    assert token != session
    again = request(ui, "POST", "/api/login", headers=headers, body=body)
    assert again.status == 401
    auth = {"Authorization": f"Bearer {session}"}
    assert request(ui, "GET", "/api/state", headers=auth).status == 200


def test_the_browser_is_opened_on_a_private_redirect_file_not_the_token(
    isolated_home, workspace, tmp_path
):
    """`$BROWSER` stands in for the browser: it records its command line and follows the file."""
    import subprocess

    from tests.web.conftest import _first_line
    from tests.web.ui_process import ui_argv

    argv_file = tmp_path / "browser-argv.json"
    browser = tmp_path / "fake-browser"
    browser.write_text(
        f"#!{sys.executable}\nimport json, sys\n"
        f"json.dump(sys.argv, open({str(argv_file)!r}, 'w'))\n",
        encoding="utf-8",
    )
    browser.chmod(0o755)
    script = tmp_path / "script.json"
    script.write_text(json.dumps([complete()]), encoding="utf-8")
    argv = [a for a in ui_argv(workspace, script) if a != "--no-open"]
    proc = subprocess.Popen(
        argv,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
        env={**os.environ, "PYCLINE_HOME": str(isolated_home), "BROWSER": f"{browser} %s"},
    )
    try:
        line = _first_line(proc, 30)
        token = line.split("#token=", 1)[1]
        for _ in range(300):
            if argv_file.exists() and argv_file.stat().st_size:
                break
            proc.wait(0.05) if proc.poll() is not None else threading.Event().wait(0.05)
        opened = json.loads(argv_file.read_text(encoding="utf-8"))
        assert not any(token in arg for arg in opened), opened
        target = opened[-1].removeprefix("file://")
        redirect = Path(target)
        assert redirect.is_file()
        assert stat.S_IMODE(redirect.stat().st_mode) == 0o600
        assert stat.S_IMODE(redirect.parent.stat().st_mode) == 0o700
        assert token in redirect.read_text(encoding="utf-8")
    finally:
        proc.send_signal(2)
        proc.wait(30)
    assert not redirect.exists()  # removed when the server stops


def test_a_start_token_expires_and_password_guessing_ends_it():
    from pycline.web.security import MAX_WRONG_PASSWORDS, TOKEN_LIFETIME, Guard

    now = [1000.0]
    guard = Guard("127.0.0.1", 1, clock=lambda: now[0])
    token = guard.token
    assert token is not None
    now[0] += TOKEN_LIFETIME + 1
    assert guard.login(token, None) is None
    fresh = guard.issue_token()
    assert guard.login(fresh, None) is not None
    locked = Guard("127.0.0.1", 1, password="pw")
    token = locked.token
    assert token is not None
    for _ in range(MAX_WRONG_PASSWORDS):
        assert locked.login(token, "guess") is None
    assert locked.login(token, "pw") is None
