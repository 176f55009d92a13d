"""A stdio MCP server that crashes: on its `crash` tool, and at start-up when told to.

Each start appends a line to the file named by CRASH_LOG. Starts number 2 to 1+CRASH_STARTS
(counted from that file) exit at once with a message on stderr, so a test can watch a restart
fail a few times before it succeeds.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

LOG = Path(os.environ["CRASH_LOG"])
FAILING_STARTS = int(os.environ.get("CRASH_STARTS", "0"))

with LOG.open("a", encoding="utf-8") as fh:
    fh.write(f"{time.monotonic()}\n")
start = len(LOG.read_text(encoding="utf-8").splitlines())
if 2 <= start <= 1 + FAILING_STARTS:
    print(f"fatal: start {start} refuses to come up", file=sys.stderr, flush=True)
    sys.exit(3)

from mcp.server.mcpserver import MCPServer  # noqa: E402  (only servers that come up need it)

server = MCPServer("crash")


@server.tool(description="Report which start this is.")
def hello() -> str:
    return f"alive (start {start})"


@server.tool(description="Exit the process immediately.")
def crash() -> str:
    print("fatal: crashing on request", file=sys.stderr, flush=True)
    os._exit(7)


if __name__ == "__main__":
    server.run()
