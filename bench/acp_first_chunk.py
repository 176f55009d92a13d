"""Time from `initialize` to the first `agent_message_chunk`: `pycline acp` as a fresh process
with the scripted provider, driven by a raw JSON-RPC client (initialize, session/new, prompt).

Run: .venv/bin/python bench/acp_first_chunk.py [--runs N]
Prints each phase's median: process start to the initialize reply (mostly imports), session/new,
prompt to the first chunk, and the whole span the issue asks about.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPLY = "Hello from the scripted model.\n<attempt_completion>\n<result>ok</result>\n</attempt_completion>"


async def one_run(root: Path) -> dict[str, float]:
    workspace = root / "project"
    workspace.mkdir(exist_ok=True)
    script = root / "script.json"
    script.write_text(json.dumps([REPLY]), encoding="utf-8")
    env = {**os.environ, "PYCLINE_HOME": str(root / "home")}
    cmd = [sys.executable, "-m", "pycline", "acp", "--provider", "scripted"]
    started = time.perf_counter()
    process = await asyncio.create_subprocess_exec(
        *cmd,
        "--script",
        str(script),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        env=env,
    )
    assert process.stdin is not None and process.stdout is not None
    stdin, stdout = process.stdin, process.stdout

    async def send(message: dict[str, Any]) -> None:
        stdin.write((json.dumps({"jsonrpc": "2.0", **message}) + "\n").encode())
        await stdin.drain()

    async def until(wanted: Any) -> dict[str, Any]:
        while True:
            message: dict[str, Any] = json.loads(await stdout.readline())
            if wanted(message):
                return message

    await send({"id": 1, "method": "initialize", "params": {"protocolVersion": 1}})
    initialize_sent = time.perf_counter()
    await until(lambda m: m.get("id") == 1)
    initialized = time.perf_counter()
    await send(
        {"id": 2, "method": "session/new", "params": {"cwd": str(workspace), "mcpServers": []}}
    )
    session = (await until(lambda m: m.get("id") == 2))["result"]["sessionId"]
    created = time.perf_counter()
    prompt = [{"type": "text", "text": "say hello"}]
    await send(
        {"id": 3, "method": "session/prompt", "params": {"sessionId": session, "prompt": prompt}}
    )
    await until(
        lambda m: (
            m.get("params", {}).get("update", {}).get("sessionUpdate") == "agent_message_chunk"
        )
    )
    first_chunk = time.perf_counter()
    await until(lambda m: m.get("id") == 3)
    stdin.close()
    await process.wait()
    return {
        "start to initialize reply": initialized - started,
        "session/new": created - initialized,
        "prompt to first chunk": first_chunk - created,
        "initialize to first chunk": first_chunk - initialize_sent,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5)
    runs = parser.parse_args().runs
    results: list[dict[str, float]] = []
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as tmp:
            results.append(asyncio.run(one_run(Path(tmp))))
    for key in results[0]:
        values = [r[key] for r in results]
        print(
            f"{key:28} median {statistics.median(values) * 1000:7.0f} ms  "
            f"(min {min(values) * 1000:.0f}, max {max(values) * 1000:.0f})"
        )


if __name__ == "__main__":
    main()
