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


def login(ui: UiServer) -> str:
    token = ui.url.split("#token=", 1)[1]
    response = request(
        ui,
        "POST",
        "/api/login",
        headers={"Content-Type": "application/json", "Origin": ui.base},
        body=json.dumps({"token": token}),
    )
    assert response.status == 200
    cookie = response.getheader("Set-Cookie") or ""
    assert "HttpOnly" in cookie
    assert "SameSite=Strict" in cookie
    assert token not in cookie  # the cookie is a session of its own, not the token
    return cookie.split(";", 1)[0]


def test_the_printed_token_carries_256_random_bits(shared_ui):
    ui = shared_ui
    token = ui.url.split("#token=", 1)[1]
    assert len(base64.urlsafe_b64decode(token + "=")) == 32


def test_the_api_refuses_a_request_without_the_session_cookie(shared_ui):
    ui = shared_ui
    assert request(ui, "GET", "/api/state").status == 401
    assert request(ui, "GET", "/api/history").status == 401
    cookie = login(ui)
    assert request(ui, "GET", "/api/state", headers={"Cookie": cookie}).status == 200


def test_a_wrong_token_gets_no_cookie(shared_ui):
    ui = shared_ui
    response = request(
        ui,
        "POST",
        "/api/login",
        headers={"Content-Type": "application/json", "Origin": ui.base},
        body=json.dumps({"token": "A" * 43}),
    )
    assert response.status == 401
    assert response.getheader("Set-Cookie") is None


def test_a_request_naming_another_host_is_refused_even_with_the_cookie(shared_ui):
    ui = shared_ui
    cookie = login(ui)
    # DNS rebinding: a page of evil.example resolved to 127.0.0.1 sends its own name as Host.
    for host in (f"evil.example:{ui.port}", "127.0.0.1", f"127.0.0.1:{ui.port + 1}"):
        response = request(ui, "GET", "/api/state", headers={"Host": host, "Cookie": cookie})
        assert response.status == 421, host
    assert request(ui, "GET", "/", headers={"Host": f"evil.example:{ui.port}"}).status == 421


def test_the_websocket_refuses_a_foreign_origin_and_a_missing_cookie(shared_ui):
    ui = shared_ui
    cookie = login(ui)
    foreign = {**WS_HEADERS, "Cookie": cookie, "Origin": "http://evil.example"}
    assert request(ui, "GET", "/ws", headers=foreign).status == 403
    no_origin = {**WS_HEADERS, "Cookie": cookie}
    assert request(ui, "GET", "/ws", headers=no_origin).status == 403
    no_cookie = {**WS_HEADERS, "Origin": ui.base}
    assert request(ui, "GET", "/ws", headers=no_cookie).status == 401
    good = {**WS_HEADERS, "Cookie": cookie, "Origin": ui.base}
    assert request(ui, "GET", "/ws", headers=good).status == 101


def test_writes_need_our_origin_and_json(shared_ui):
    ui = shared_ui
    cookie = login(ui)
    body = json.dumps({"favorite": True})
    foreign = {
        "Cookie": cookie,
        "Origin": "http://evil.example",
        "Content-Type": "application/json",
    }
    assert request(ui, "POST", "/api/history/x/favorite", headers=foreign, body=body).status == 403
    form = {"Cookie": cookie, "Origin": ui.base, "Content-Type": "text/plain"}
    assert request(ui, "POST", "/api/history/x/favorite", headers=form, body=body).status == 415


def test_no_response_allows_other_origins(shared_ui):
    ui = shared_ui
    cookie = login(ui)
    response = request(
        ui, "GET", "/api/state", headers={"Cookie": cookie, "Origin": "http://evil.example"}
    )
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
