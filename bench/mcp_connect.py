"""Connect time of 5 stdio MCP servers through the hub: in parallel, and one by one for scale.

Uses the reference server installed by .ci/run (`.ci/node/.../mcp-server-everything`).
Prints the median over a few runs; the first run also pays for importing the `mcp` SDK.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

from pycline.mcp.hub import McpHub

REPO = Path(__file__).resolve().parents[1]
SERVER = REPO / ".ci" / "node" / "node_modules" / ".bin" / "mcp-server-everything"
COUNT = 5


async def connect_all(settings: Path) -> float:
    hub = McpHub(settings_path=settings, watch_interval=None)
    start = time.perf_counter()
    await hub.start()
    elapsed = time.perf_counter() - start
    states = hub.servers()
    await hub.close()
    bad = [s for s in states if s.status != "connected"]
    if bad:
        raise SystemExit(f"not connected: {[(s.name, s.error) for s in bad]}")
    return elapsed


async def connect_one_by_one(folder: Path) -> float:
    total = 0.0
    for i in range(COUNT):
        path = folder / f"one-{i}.json"
        path.write_text(json.dumps({"mcpServers": {"s": {"command": str(SERVER)}}}), "utf-8")
        total += await connect_all(path)
    return total


async def main(runs: int = 5) -> None:
    if not SERVER.exists():
        sys.exit(f"missing {SERVER}: run .ci/run (or its npm install line) first")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        settings = folder / "cline_mcp_settings.json"
        servers = {f"s{i}": {"command": str(SERVER), "args": ["stdio"]} for i in range(COUNT)}
        settings.write_text(json.dumps({"mcpServers": servers}), "utf-8")
        await connect_all(settings)  # warm-up: SDK import, node's file cache
        parallel = [await connect_all(settings) for _ in range(runs)]
        serial = [await connect_one_by_one(folder) for _ in range(2)]
    print(
        f"{COUNT} stdio servers connected in parallel: median {statistics.median(parallel):.2f} s "
        f"(min {min(parallel):.2f}, max {max(parallel):.2f}, {runs} runs); "
        f"one by one: {statistics.median(serial):.2f} s"
    )


if __name__ == "__main__":
    asyncio.run(main())
