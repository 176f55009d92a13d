from __future__ import annotations

import asyncio
import re
import shlex
import sys
import urllib.request
from pathlib import Path

from pycline.terminal.background import BackgroundProcesses
from tests.tools.readcmd_support import live_group_members

PY = shlex.quote(sys.executable)


def _fetch(url: str) -> str:
    with urllib.request.urlopen(url, timeout=5) as response:
        body: bytes = response.read()
    return body.decode("utf-8")


async def test_http_server_runs_in_the_background_and_stops(tmp_path: Path) -> None:
    (tmp_path / "hello.txt").write_text("hello from the server", encoding="utf-8")
    registry = BackgroundProcesses()
    pid = await registry.start(f"{PY} -m http.server 0 --bind 127.0.0.1", tmp_path)
    try:
        banner = await registry.wait_for_output(pid, "Serving HTTP", timeout=10)
        port = re.search(r"port (\d+)", banner)
        assert port is not None, banner
        body = await asyncio.to_thread(_fetch, f"http://127.0.0.1:{port.group(1)}/hello.txt")
        assert body == "hello from the server"
        (info,) = registry.list()
        assert info.running and info.command.endswith("--bind 127.0.0.1")
        log = await registry.wait_for_output(pid, "hello.txt", timeout=10)
        assert "GET /hello.txt" in log
    finally:
        pgid = registry.list()[0].pid
        await registry.stop(pid)
    assert len(registry) == 0
    # Only zombies may remain: a grandchild re-parented to init is reaped when init gets to it.
    assert live_group_members(pgid) == []


async def test_new_output_reports_only_what_is_new(tmp_path: Path) -> None:
    registry = BackgroundProcesses()
    pid = await registry.start("echo first; echo second; exec sleep 30", tmp_path)
    try:
        seen = await registry.wait_for_output(pid, "second", timeout=10)
        assert "first" in seen and "second" in seen
        assert registry.new_output(pid) == ""
    finally:
        await registry.stop_all()
    assert len(registry) == 0


async def test_stop_all_kills_every_process_group(tmp_path: Path) -> None:
    registry = BackgroundProcesses()
    ids = [
        await registry.start(f"echo ready{i}; sleep 30 & exec sleep 30", tmp_path) for i in range(3)
    ]
    for i, pid in enumerate(ids):
        assert f"ready{i}" in await registry.wait_for_output(pid, f"ready{i}", timeout=10)
    groups = [info.pid for info in registry.list()]
    assert all(live_group_members(g) for g in groups)
    await registry.stop_all()
    assert [live_group_members(g) for g in groups] == [[], [], []]


async def test_finished_background_command_shows_its_exit_code(tmp_path: Path) -> None:
    registry = BackgroundProcesses()
    pid = await registry.start("echo bye; exit 4", tmp_path)
    out = await registry.wait_for_output(pid, "never printed", timeout=10)
    assert "bye" in out
    # The output ended; the exit status follows as soon as the shell is reaped.
    assert await registry.get(pid).wait(10) == 4
    (info,) = registry.list()
    assert info.id == pid and info.exit_code == 4 and not info.running
    await registry.stop_all()
