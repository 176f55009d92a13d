"""A line over the control socket's limit (4 MiB) is answered with `rejected`, and the same
connection goes on: the next message on it is served, and no traceback reaches the task's log."""

from __future__ import annotations

import json
import socket
from pathlib import Path

from pycline.app.background.paths import read_secret
from pycline.app.background.protocol import MAX_LINE
from tests.security.test_bg_socket import bg_env, waiting_task

__all__ = ["bg_env"]


def _reply(f: object) -> dict[str, object]:
    line = f.readline()  # type: ignore[attr-defined]
    assert line, "the connection was dropped"
    return dict(json.loads(line))


def test_an_oversized_line_is_rejected_and_the_connection_goes_on(
    bg_env: dict[str, str], isolated_home: Path, workspace: Path
) -> None:
    with waiting_task(bg_env, isolated_home, workspace) as (bg_id, path):
        secret = read_secret(isolated_home, bg_id)
        with socket.socket(socket.AF_UNIX) as s:
            s.settimeout(60)
            s.connect(str(path))
            f = s.makefile("rw", encoding="utf-8")
            # Over the limit with its newline far away, then one whose newline is just past it.
            for size in (MAX_LINE + 3 * 1024 * 1024, MAX_LINE + 10):
                f.write('{"op": "status", "pad": "' + "x" * size + '"}\n')
                f.flush()
                reply = _reply(f)
                assert reply["kind"] == "rejected" and "at most 4 MiB" in str(reply["error"])
            f.write(json.dumps({"op": "status", "secret": secret}) + "\n")
            f.flush()
            state = _reply(f)
        assert state["type"] == "state", state
        log = (isolated_home / "background" / f"{bg_id}.log").read_text(encoding="utf-8")
        assert "Traceback" not in log and "LimitOverrun" not in log, log
