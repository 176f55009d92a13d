"""A streamed 1 MB write costs the UI's WebSocket about 1 MB, and `pycline ui` grows by a small
multiple of it (it sent every chunk with all the content so far, and kept them all to replay)."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

from tests.fakes.openai_server import FakeOpenAI, OpenAIReply
from tests.web.conftest import START_TIMEOUT, _first_line
from tests.web.socket_client import PageSocket, page_socket

SIZE = 1_000_000
CONTENT = "".join(f"line {i:07d} of a big generated file\n" for i in range(SIZE // 36))


def write(path: str, content: str) -> str:
    return f"<write_to_file>\n<path>{path}</path>\n<content>\n{content}</content>\n</write_to_file>"


COMPLETE = "<attempt_completion>\n<result>done</result>\n</attempt_completion>"


def _peak_rss(pid: int) -> int:
    """The process's peak resident memory in bytes (Linux's VmHWM)."""
    for line in Path(f"/proc/{pid}/status").read_text(encoding="ascii").splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmHWM")


async def _stream_task(url: str, pid: int) -> tuple[int, int]:
    """A small task from a page (so that what loads on first use is loaded), then the big one:
    the bytes of WebSocket messages until its write finished, and how much the peak memory of
    process `pid` grew meanwhile."""
    async with page_socket(url) as page:
        await page.next("hello")
        await _run_until_written(page, "write a small file")
        before = _peak_rss(pid)
        received = await _run_until_written(page, "write a big file")
        return received, _peak_rss(pid) - before


async def _run_until_written(page: PageSocket, text: str) -> int:
    await page.send({"v": 1, "kind": "new_task", "text": text, "request": text})
    task_id = (await page.next("started"))["task_id"]
    received = 0
    while True:
        message = await asyncio.wait_for(page.ws.receive(), 120)
        received += len(message.data)
        data = json.loads(message.data)
        events = data.get("events", []) if data.get("task_id") == task_id else []
        if any(e["kind"] == "tool_finished" and e["tool"] == "write_to_file" for e in events):
            return received


def test_a_1_mb_streamed_write_costs_the_websocket_about_1_mb_and_little_memory(
    isolated_home: Path, workspace: Path
) -> None:
    settings = {"toolCallFormat": "xml", "autoApprove": {"editFiles": True}}
    (isolated_home / "settings").mkdir()
    (isolated_home / "settings" / "settings.json").write_text(json.dumps(settings))
    replies = [write("small.txt", "small\n"), COMPLETE,
               OpenAIReply(text=write("big.txt", CONTENT), delta_size=512), COMPLETE]  # fmt: skip
    with FakeOpenAI(replies) as server:
        server.max_piece = 4096
        argv = [sys.executable, "-m", "pycline", "ui", "--no-open", "--cwd",
                str(workspace), "--provider", "openai", "--base-url", server.base_url,
                "--api-key", "k", "--model", "gpt-5"]  # fmt: skip
        env = {**os.environ, "NO_COLOR": "1", "PYCLINE_HOME": str(isolated_home)}
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                stdin=subprocess.DEVNULL, text=True, env=env)  # fmt: skip
        try:
            url = _first_line(proc, START_TIMEOUT).removeprefix("pycline ui: ")
            received, grown = asyncio.run(_stream_task(url, proc.pid))
        finally:
            proc.send_signal(signal.SIGINT)
            proc.wait(timeout=60)
    assert (workspace / "big.txt").read_text(encoding="utf-8") == CONTENT
    # The streamed content once, the saved file echoed in the tool result, framing.
    assert received < 3.5 * SIZE, received
    # What `pycline run` itself holds for such a write (the reply, the history, the request, the
    # file): about twenty times its size; the page's stream and replay add nothing in proportion.
    assert grown < 40 * SIZE, grown
