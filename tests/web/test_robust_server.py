"""`pycline ui` keeps answering while `$BROWSER` runs, accepts the URL it prints for any loopback
address, and answers a WebSocket action nested without end with an error."""

from __future__ import annotations

import asyncio
import contextlib
import http.client
import json
import os
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import aiohttp

from tests.web.conftest import START_TIMEOUT, _first_line, complete
from tests.web.ui_process import ui_argv


@contextlib.contextmanager
def _ui(home: Path, workspace: Path, tmp_path: Path, *extra: str, env: dict[str, str] | None = None,
        open_browser: bool = False) -> Iterator[str]:  # fmt: skip
    script = tmp_path / "script.json"
    script.write_text(json.dumps([complete()]), encoding="utf-8")
    argv = ui_argv(workspace, script, *extra)
    if open_browser:
        argv.remove("--no-open")
    proc = subprocess.Popen(
        argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True,
        env={**os.environ, "NO_COLOR": "1", "PYCLINE_HOME": str(home), **(env or {})},
    )  # fmt: skip
    try:
        line = _first_line(proc, START_TIMEOUT)
        assert line.startswith("pycline ui: http://"), line
        yield line.removeprefix("pycline ui: ")
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


def _get(url: str, path: str, *, timeout: float, headers: dict[str, str] | None = None) -> int:
    host, port = url.split("//", 1)[1].split("/", 1)[0].rsplit(":", 1)
    conn = http.client.HTTPConnection(host, int(port), timeout=timeout)
    conn.request("GET", path, headers=headers or {})
    return conn.getresponse().status


def _login(url: str) -> str:
    base, token = url.split("/#token=", 1)
    host, port = base.split("//", 1)[1].rsplit(":", 1)
    conn = http.client.HTTPConnection(host, int(port), timeout=10)
    headers = {"Content-Type": "application/json", "Origin": base}
    conn.request("POST", "/api/login", body=json.dumps({"token": token}), headers=headers)
    response = conn.getresponse()
    assert response.status == 200
    return str(json.loads(response.read())["session"])


def test_a_loopback_host_other_than_127_0_0_1_serves_the_url_it_prints(
    isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    with _ui(isolated_home, workspace, tmp_path, "--host", "127.0.0.2") as url:
        assert url.startswith("http://127.0.0.2:")
        base = url.split("/#", 1)[0]
        assert _get(url, "/", timeout=10) == 200  # http.client sends Host: 127.0.0.2:<port>
        auth = {"Authorization": "Bearer " + _login(url), "Origin": base}
        assert _get(url, "/api/state", timeout=10, headers=auth) == 200
        other = {**auth, "Host": "evil.example:" + base.rsplit(":", 1)[1]}
        assert _get(url, "/api/state", timeout=10, headers=other) == 421


def test_the_server_answers_while_the_browser_command_runs(
    isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    # A $BROWSER command that does not return (a text browser the user is reading in).
    pid_file = tmp_path / "browser.pid"
    browser = tmp_path / "slow-browser"
    browser.write_text(f"#!/bin/sh\necho $$ > {pid_file}\nexec sleep 120\n", encoding="utf-8")
    browser.chmod(0o755)
    env = {"BROWSER": str(browser), "DISPLAY": "", "WAYLAND_DISPLAY": ""}
    try:
        with _ui(isolated_home, workspace, tmp_path, env=env, open_browser=True) as url:
            deadline = time.monotonic() + START_TIMEOUT
            while not pid_file.exists() or not pid_file.read_text(encoding="utf-8").strip():
                assert time.monotonic() < deadline, "the browser command never started"
                time.sleep(0.05)
            assert _get(url, "/", timeout=5) == 200
            asyncio.run(_deep_websocket_action(url, _login(url)))
    finally:
        with contextlib.suppress(FileNotFoundError, ValueError, ProcessLookupError):
            os.kill(int(pid_file.read_text(encoding="utf-8")), signal.SIGKILL)


async def _deep_websocket_action(url: str, session: str) -> None:
    base = url.split("/#", 1)[0]
    protocols = ("pycline", f"pycline-session.{session}")  # as the page offers its session
    timeout = aiohttp.ClientWSTimeout(10)
    async with (
        aiohttp.ClientSession() as client,
        client.ws_connect(
            base + "/ws", headers={"Origin": base}, protocols=protocols, timeout=timeout
        ) as ws,
    ):
        await ws.send_str("[" * 100_000 + "]" * 100_000)
        await ws.send_str(json.dumps({"v": 1, "task_id": "nope", "kind": "cancel", "request": 7}))
        rejected: list[dict[str, object]] = []
        while len(rejected) < 2:
            message = await asyncio.wait_for(ws.receive_json(), 10)
            if message.get("kind") == "rejected":
                rejected.append(message)
        assert "not JSON" in str(rejected[0]["error"])
        assert rejected[1]["request"] == 7  # the socket kept serving after the bad message


def test_the_host_check_names_match_the_printed_url() -> None:
    from pycline.web.security import Guard

    assert "127.0.0.2:8000" in Guard("127.0.0.2", 8000).allowed_hosts()
    assert "[::1]:8000" in Guard("::1", 8000).allowed_hosts()
    assert Guard("fe80::1", 8000).allowed_hosts() == {"[fe80::1]:8000"}
