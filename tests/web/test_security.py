"""Only the browser holding the printed token reaches the UI server, through the expected name."""

from __future__ import annotations

import base64
import http.client
import json
import os
import subprocess
import sys

from tests.web.conftest import UiServer

WS_HEADERS = {
    "Upgrade": "websocket",
    "Connection": "Upgrade",
    "Sec-WebSocket-Version": "13",
    "Sec-WebSocket-Key": base64.b64encode(os.urandom(16)).decode(),
}


def request(
    ui: UiServer,
    method: str,
    path: str,
    *,
    headers: dict[str, str] | None = None,
    body: str | None = None,
) -> http.client.HTTPResponse:
    conn = http.client.HTTPConnection("127.0.0.1", ui.port, timeout=10)
    sent = {"Host": f"127.0.0.1:{ui.port}", **(headers or {})}
    conn.request(method, path, body=body, headers=sent)
    return conn.getresponse()


def login(ui: UiServer) -> dict[str, str]:
    """Log in with a fresh link's token: the session header to send (never a cookie)."""
    token = ui.url.split("#token=", 1)[1]
    response = request(
        ui,
        "POST",
        "/api/login",
        headers={"Content-Type": "application/json", "Origin": ui.base},
        body=json.dumps({"token": token}),
    )
    assert response.status == 200
    assert response.getheader("Set-Cookie") is None
    session = json.loads(response.read())["session"]
    assert token not in session  # the session is a credential of its own, not the token
    return {"Authorization": f"Bearer {session}"}


def test_the_printed_token_carries_256_random_bits(shared_ui):
    ui = shared_ui
    token = ui.url.split("#token=", 1)[1]
    assert len(base64.urlsafe_b64decode(token + "=")) == 32


def test_the_api_refuses_a_request_without_the_session(shared_ui):
    ui = shared_ui
    assert request(ui, "GET", "/api/state").status == 401
    assert request(ui, "GET", "/api/history").status == 401
    auth = login(ui)
    assert request(ui, "GET", "/api/state", headers=auth).status == 200
    wrong = {"Authorization": "Bearer " + "A" * 43}
    assert request(ui, "GET", "/api/state", headers=wrong).status == 401


def test_a_wrong_token_gets_no_session(shared_ui):
    ui = shared_ui
    response = request(
        ui,
        "POST",
        "/api/login",
        headers={"Content-Type": "application/json", "Origin": ui.base},
        body=json.dumps({"token": "A" * 43}),
    )
    assert response.status == 401
    assert "session" not in json.loads(response.read())


def test_a_request_naming_another_host_is_refused_even_with_the_session(shared_ui):
    ui = shared_ui
    auth = login(ui)
    # DNS rebinding: a page of evil.example resolved to 127.0.0.1 sends its own name as Host.
    for host in (f"evil.example:{ui.port}", "127.0.0.1", f"127.0.0.1:{ui.port + 1}"):
        response = request(ui, "GET", "/api/state", headers={"Host": host, **auth})
        assert response.status == 421, host
    assert request(ui, "GET", "/", headers={"Host": f"evil.example:{ui.port}"}).status == 421


def test_the_websocket_refuses_a_foreign_origin_and_a_missing_session(shared_ui):
    ui = shared_ui
    session = login(ui)["Authorization"].removeprefix("Bearer ")
    offer = {"Sec-WebSocket-Protocol": f"pycline, pycline-session.{session}"}
    foreign = {**WS_HEADERS, **offer, "Origin": "http://evil.example"}
    assert request(ui, "GET", "/ws", headers=foreign).status == 403
    no_origin = {**WS_HEADERS, **offer}
    assert request(ui, "GET", "/ws", headers=no_origin).status == 403
    no_session = {**WS_HEADERS, "Origin": ui.base, "Sec-WebSocket-Protocol": "pycline"}
    assert request(ui, "GET", "/ws", headers=no_session).status == 401
    good = {**WS_HEADERS, **offer, "Origin": ui.base}
    accepted = request(ui, "GET", "/ws", headers=good)
    assert accepted.status == 101
    assert accepted.getheader("Sec-WebSocket-Protocol") == "pycline"  # the session not echoed


def test_writes_need_our_origin_and_json(shared_ui):
    ui = shared_ui
    auth = login(ui)
    body = json.dumps({"favorite": True})
    foreign = {**auth, "Origin": "http://evil.example", "Content-Type": "application/json"}
    assert request(ui, "POST", "/api/history/x/favorite", headers=foreign, body=body).status == 403
    form = {**auth, "Origin": ui.base, "Content-Type": "text/plain"}
    assert request(ui, "POST", "/api/history/x/favorite", headers=form, body=body).status == 415


def test_no_response_allows_other_origins(shared_ui):
    ui = shared_ui
    auth = login(ui)
    response = request(ui, "GET", "/api/state", headers={**auth, "Origin": "http://evil.example"})
    assert response.getheader("Access-Control-Allow-Origin") is None
    page = request(ui, "GET", "/")
    assert page.status == 200
    assert "script-src 'self'" in (page.getheader("Content-Security-Policy") or "")


def test_listening_beyond_loopback_needs_a_password(isolated_home, workspace):
    env = {k: v for k, v in os.environ.items() if k != "PYCLINE_UI_PASSWORD"}
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pycline",
            "ui",
            "--no-open",
            "--host",
            "0.0.0.0",
            "--cwd",
            str(workspace),
        ],
        capture_output=True,
        text=True,
        timeout=30,
        env=env,
        stdin=subprocess.DEVNULL,
    )
    assert proc.returncode == 2
    assert "PYCLINE_UI_PASSWORD" in proc.stderr
    assert proc.stdout == ""


def test_with_a_password_set_the_token_alone_does_not_log_in(start_ui):
    ui = start_ui([], env={"PYCLINE_UI_PASSWORD": "correct horse"})
    token = ui.url.split("#token=", 1)[1]
    headers = {"Content-Type": "application/json", "Origin": ui.base}

    def attempt(password: str | None) -> int:
        body = json.dumps({"token": token, "password": password})
        return request(ui, "POST", "/api/login", headers=headers, body=body).status

    assert attempt(None) == 401
    assert attempt("wrong") == 401
    assert attempt("correct horse") == 200


def test_a_port_already_taken_is_a_one_line_error(isolated_home, workspace):
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "pycline",
                "ui",
                "--no-open",
                "--port",
                str(port),
                "--cwd",
                str(workspace),
                "--provider",
                "scripted",
                "--script",
                "unused.json",
            ],
            capture_output=True,
            text=True,
            timeout=60,
            stdin=subprocess.DEVNULL,
        )
    assert proc.returncode == 2
    assert f"cannot listen on 127.0.0.1:{port}" in proc.stderr
    assert proc.stdout == ""
