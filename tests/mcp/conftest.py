"""Fixtures for MCP tests: real servers (the npm reference server and our own), settings files."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from pycline.mcp.hub import McpHub, RestartPolicy
from pycline.mcp.settings import global_settings_path

REPO = Path(__file__).resolve().parents[2]
SERVERS = Path(__file__).resolve().parent / "servers"
EVERYTHING = REPO / ".ci" / "node" / "node_modules" / ".bin" / "mcp-server-everything"
INSTALL_HINT = (
    "npm install --prefix .ci/node @modelcontextprotocol/server-everything@2026.8.31 "
    "(from the repository root; .ci/run does this)"
)
READY_TIMEOUT = 15.0


def everything_bin() -> Path:
    # Not a skip: without the reference server these tests would prove nothing.
    if not EVERYTHING.exists():
        pytest.fail(f"MCP reference server missing at {EVERYTHING}; run: {INSTALL_HINT}")
    return EVERYTHING


def py_server(name: str, **extra: Any) -> dict[str, Any]:
    """A settings entry that runs one of tests/mcp/servers/*.py over stdio."""
    return {"command": sys.executable, "args": [str(SERVERS / f"{name}.py")], **extra}


def everything_stdio(**extra: Any) -> dict[str, Any]:
    return {"command": str(everything_bin()), "args": ["stdio"], **extra}


def write_settings(servers: dict[str, Any], path: Path | None = None) -> Path:
    target = path or global_settings_path()
    target.parent.mkdir(parents=True, exist_ok=True)
    # Replace, as editors do: the watcher must notice a new file, not only a rewritten one.
    tmp = target.with_suffix(".tmp")
    tmp.write_text(json.dumps({"mcpServers": servers}), encoding="utf-8")
    os.replace(tmp, target)
    return target


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def wait_for_port(port: int, proc: subprocess.Popen[bytes], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited with {proc.returncode} before listening")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)  # polling the port for readiness, bounded by the deadline
    raise TimeoutError(f"nothing listened on port {port} within {timeout} s")


@pytest.fixture
def http_everything() -> Iterator[Callable[[str], str]]:
    """Start the reference server over `sse` or `streamableHttp`; returns its endpoint URL."""
    procs: list[subprocess.Popen[bytes]] = []

    def start(mode: str) -> str:
        port = free_port()
        proc = subprocess.Popen(
            [str(everything_bin()), mode],
            env={**os.environ, "PORT": str(port)},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        procs.append(proc)
        wait_for_port(port, proc, READY_TIMEOUT)
        path = "/sse" if mode == "sse" else "/mcp"
        return f"http://127.0.0.1:{port}{path}"

    yield start
    for proc in procs:
        proc.terminate()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.fixture
async def make_hub(workspace: Path) -> AsyncIterator[Callable[..., McpHub]]:
    """Build hubs that are closed after the test, however it ends."""
    hubs: list[McpHub] = []

    def build(**kwargs: Any) -> McpHub:
        kwargs.setdefault("watch_interval", None)
        kwargs.setdefault("connect_timeout", 20.0)
        kwargs.setdefault("restart", RestartPolicy(base_delay=0.05, max_attempts=3))
        hub = McpHub(**kwargs)
        hubs.append(hub)
        return hub

    yield build
    for hub in hubs:
        await hub.close()
