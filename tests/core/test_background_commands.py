"""A dev server started by the model keeps running, is reported, and is stopped with the task."""

from __future__ import annotations

import socket
import sys
from pathlib import Path

from tests.core.harness import RecordingHost, complete, make_task


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _command(line: str, timeout: int | None = None) -> str:
    extra = f"<timeout>{timeout}</timeout>\n" if timeout else ""
    return (
        f"<execute_command>\n<command>{line}</command>\n"
        f"<requires_approval>false</requires_approval>\n{extra}</execute_command>"
    )


async def test_dev_server_runs_in_background_is_reported_and_stopped(
    isolated_home: Path, workspace: Path
) -> None:
    (workspace / "index.html").write_text("<h1>it works</h1>", encoding="utf-8")
    port = _free_port()
    fetch = (
        f'{sys.executable} -c "import time, urllib.request as u\n'
        "for _ in range(100):\n"
        "    try:\n"
        f"        print(u.urlopen('http://127.0.0.1:{port}/').read().decode()); break\n"
        '    except OSError: time.sleep(0.1)"'
    )
    replies = [
        _command(f"{sys.executable} -m http.server {port} --bind 127.0.0.1", timeout=2),
        _command(fetch),
        complete("server checked"),
    ]
    host = RecordingHost()
    task, provider = make_task(isolated_home, workspace, replies, host)
    outcome = await task.start("serve and check")
    assert outcome.completed
    started = provider.requests[1].messages[-1].text
    assert "continues in the background" in started
    assert "# Actively Running Terminals" in started
    checked = provider.requests[2].messages[-1].text
    assert "it works" in checked
    assert "http.server" in checked.split("# Actively Running Terminals")[1]
    # The task ended: its background server is gone and the port is free again.
    with socket.socket() as s:
        assert s.connect_ex(("127.0.0.1", port)) != 0
