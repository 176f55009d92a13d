"""Logging in to an OAuth-protected MCP server through a real browser, as a user does.

The server (tests/mcp/servers/oauth_http.py) is the SDK's authorization server and resource
server on loopback, with a consent page. `pycline mcp login` opens "the browser" (BROWSER points
at a script that hands the address to this test), Chromium (Playwright) approves on the consent
page, the redirect reaches pycline's loopback listener. Then a headless task calls the server's
tool after the access token expired (pycline refreshes it), `pycline mcp logout` revokes and
forgets the login, and a headless task that meets the server again fails that tool with a
message naming `pycline mcp login`.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pycline.browser.chromium import ChromiumNotFound, find_chromium
from tests.mcp.conftest import SERVERS, free_port

TOKEN_SECONDS = 3
WAIT = 60.0


def _get_json(url: str) -> dict[str, Any]:
    with urllib.request.urlopen(url, timeout=10) as response:
        data: dict[str, Any] = json.loads(response.read())
        return data


@pytest.fixture
def oauth_server(tmp_path: Path) -> Iterator[str]:
    port = free_port()
    log = (tmp_path / "server.log").open("w")
    proc = subprocess.Popen(
        [sys.executable, str(SERVERS / "oauth_http.py"), str(port), str(TOKEN_SECONDS)],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + WAIT
    while True:
        try:
            _get_json(f"{base}/test/state")
            break
        except OSError:
            assert proc.poll() is None, "the OAuth test server exited"
            assert time.monotonic() < deadline, "the OAuth test server did not start"
            time.sleep(0.1)
    try:
        yield base
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        log.close()


def _env(home: Path, url_file: Path) -> dict[str, str]:
    opener = (
        f"{shlex.quote(sys.executable)} -c {shlex.quote(_OPENER)} {shlex.quote(str(url_file))} %s"
    )
    return {
        **os.environ,
        "PYCLINE_HOME": str(home),
        "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring",
        "BROWSER": opener,
    }


# "The browser": writes the address it was asked to open where the test reads it.
_OPENER = "import sys, pathlib; pathlib.Path(sys.argv[1]).write_text(sys.argv[2])"


def _pycline(*args: str, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pycline", *args],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=WAIT * 2,
        check=False,
    )


def _run_tool(env: dict[str, str], workspace: Path, tmp: Path) -> subprocess.CompletedProcess[str]:
    arguments = {"server_name": "remote", "tool_name": "whoami", "arguments": "{}"}
    script = [
        {"tool_calls": [{"name": "use_mcp_tool", "arguments": arguments}]},
        {"tool_calls": [{"name": "attempt_completion", "arguments": {"result": "Done."}}]},
    ]
    path = tmp / f"script-{time.monotonic_ns()}.json"
    path.write_text(json.dumps(script), encoding="utf-8")
    return _pycline(
        "run", "--provider", "scripted", "--script", str(path), "--yes", "--json",
        "--cwd", str(workspace), "ask the remote server", env=env, cwd=workspace,
    )  # fmt: skip


def _tool_results(stdout: str) -> list[str]:
    texts = []
    for line in stdout.splitlines():
        event = json.loads(line)
        if event.get("kind") == "tool_finished" and event.get("tool") == "use_mcp_tool":
            texts.append(str(event.get("result", "")))
    return texts


def test_browser_login_refresh_and_logout(oauth_server: str, tmp_path: Path) -> None:
    from playwright.sync_api import sync_playwright

    try:
        chromium_path = find_chromium()
    except ChromiumNotFound as exc:
        pytest.fail(f"this test needs a real Chromium (apt-get install chromium): {exc}")

    home, workspace = tmp_path / "home", tmp_path / "workspace"
    (home / "settings").mkdir(parents=True)
    workspace.mkdir()
    settings = {"mcpServers": {"remote": {"type": "streamableHttp", "url": f"{oauth_server}/mcp"}}}
    settings_file = home / "settings" / "cline_mcp_settings.json"
    settings_file.write_text(json.dumps(settings), encoding="utf-8")
    url_file = tmp_path / "opened-url"
    env = _env(home, url_file)

    # Before any login a headless run fails the tool, naming the command that logs in.
    before = _run_tool(env, workspace, tmp_path)
    assert any("pycline mcp login remote" in t for t in _tool_results(before.stdout)), before

    login = subprocess.Popen(
        [sys.executable, "-m", "pycline", "mcp", "login", "remote"],
        env=env, cwd=workspace, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        stdin=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + WAIT
        while not url_file.exists():
            assert login.poll() is None, login.communicate()
            assert time.monotonic() < deadline, "pycline never opened the browser"
            time.sleep(0.1)
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=chromium_path, args=["--no-sandbox"])
            page = browser.new_page()
            page.goto(url_file.read_text())
            page.get_by_role("button", name="Approve").click()
            page.get_by_text("Logged in.").wait_for(timeout=WAIT * 1000)
            browser.close()
        out, err = login.communicate(timeout=WAIT)
    finally:
        if login.poll() is None:
            login.kill()
    assert login.returncode == 0, (out, err)
    assert "remote: logged in; 1 tools" in out
    assert _get_json(f"{oauth_server}/test/state")["authorized"] == 1

    # The tokens are in the secrets store only, never in the settings file.
    secrets = json.loads((home / "secrets.json").read_text())
    record = json.loads(next(v for k, v in secrets.items() if k.startswith("mcp-oauth.remote.")))
    assert record["tokens"]["access_token"] and record["tokens"]["refresh_token"]
    assert record["tokens"]["access_token"] not in settings_file.read_text()
    assert (home / "secrets.json").stat().st_mode & 0o777 == 0o600

    # The access token expires; the next task refreshes it and the tool works, without a login.
    while time.time() < record["expires_at"] + 0.5:
        time.sleep(0.1)
    after = _run_tool(env, workspace, tmp_path)
    assert after.returncode == 0, after.stderr
    server_log = (tmp_path / "server.log").read_text()
    assert _tool_results(after.stdout) == ["You are logged in to oauth-test."], server_log[-3000:]
    state = _get_json(f"{oauth_server}/test/state")
    assert state["refreshed"] >= 1 and state["authorized"] == 1 and state["calls"] == 1

    # Logout revokes at the server and forgets the tokens.
    logout = _pycline("mcp", "logout", "remote", env=env, cwd=workspace)
    assert logout.returncode == 0, logout.stderr
    assert "remote: logged out (revoked at the authorization server)." in logout.stdout
    assert _get_json(f"{oauth_server}/test/state")["revoked"]
    assert not any(
        k.startswith("mcp-oauth.") for k in json.loads((home / "secrets.json").read_text())
    )
    again = _run_tool(env, workspace, tmp_path)
    assert any("pycline mcp login remote" in t for t in _tool_results(again.stdout)), again.stdout
