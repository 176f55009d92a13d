"""Steering a background task through its control socket: a `user_message` sent while its
command runs is queued (shown to every client), and reaches the very next model request, after
the command ends and not before."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from pycline.messages import TextContent
from pycline.storage.task_store import TaskStore
from tests.app.batch_helpers import COMPLETE, command_reply, write_script
from tests.cli.test_background import _attach_line, env, start_in_closing_terminal, wait_for

__all__ = ["env"]  # the fixture, used by name


async def test_a_message_sent_on_the_control_socket_during_a_command_reaches_the_next_request(
    env: dict[str, str], workspace: Path, tmp_path: Path, isolated_home: Path
) -> None:
    waits = "while [ ! -f go ]; do sleep 0.05; done; echo finished"
    script = write_script(tmp_path / "s.json", [command_reply(waits), COMPLETE])
    bg_id = start_in_closing_terminal(env, workspace, script, "run the check")
    sock = Path(env["XDG_RUNTIME_DIR"]) / "pycline" / f"{bg_id}.sock"
    for _ in range(600):  # the worker makes its socket as it starts
        if sock.exists():
            break
        await asyncio.sleep(0.05)
    reader, writer = await asyncio.open_unix_connection(str(sock))
    writer.write(_attach_line(env, bg_id))
    order: list[str] = []
    replies: list[str] = []
    task_id = ""
    async with asyncio.timeout(60):
        while True:
            line = await reader.readline()
            assert line, f"the socket closed; seen: {order}"
            message: dict[str, Any] = json.loads(line)
            if message.get("type") == "ended":
                break
            if message.get("kind") in ("accepted", "rejected"):
                replies.append(message["kind"])
                continue
            event = message.get("event") if message.get("type") == "event" else None
            if event is None:
                continue
            kind = event["kind"]
            task_id = event["task_id"]
            if kind == "tool_started" and "go" in event["summary"]:
                command = {"v": 1, "task_id": task_id, "kind": "user_message", "text": "use tabs"}
                writer.write((json.dumps(command) + "\n").encode())
            elif kind == "queued_messages":
                delivered = [m["text"] for m in event["delivered"]]
                pending = [m["text"] for m in event["pending"]]
                order.append(f"delivered {delivered}" if delivered else f"pending {pending}")
                if pending:
                    (workspace / "go").write_text("", encoding="utf-8")  # the command ends
            elif kind in ("tool_finished", "request_started"):
                order.append(kind)
    writer.close()
    wait_for(env, bg_id, "completed")
    # Queued while the command ran; delivered once it finished, before the next request.
    assert order == [
        "request_started",
        "pending ['use tabs']",
        "tool_finished",
        "delivered ['use tabs']",
        "request_started",
        "tool_finished",
    ], order
    assert replies == ["accepted"]
    history = TaskStore(isolated_home).open(task_id).load_api_history()
    users = [
        "\n".join(c.text for c in m.content if isinstance(c, TextContent))
        for m in history
        if m.role == "user"
    ]
    assert "use tabs" not in users[0]
    assert "finished" in users[1] and "use tabs" in users[1]
