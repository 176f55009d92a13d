"""`pycline acp`: serve the Agent Client Protocol on stdin/stdout.

stdout carries protocol messages only; logs go to stderr (or `--log FILE`).
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import sys
from collections.abc import Sequence
from typing import cast


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pycline acp",
        description="Run pycline as an Agent Client Protocol agent over stdio (for Zed, "
        "JetBrains, Neovim, Emacs…). The editor starts this command and talks JSON-RPC to it.",
    )
    parser.add_argument("--provider", help="provider (default: your pycline configuration)")
    parser.add_argument("--model", help="model id")
    parser.add_argument("--base-url", help="API base URL")
    parser.add_argument("--api-key", help="API key (else environment or saved settings)")
    parser.add_argument("--script", help="scripted provider: JSON file of replies")
    parser.add_argument("--profile", help="a model profile from the settings")
    parser.add_argument("--log", help="write logs to this file instead of stderr")
    parser.add_argument("--verbose", action="store_true", help="log protocol-level detail")
    return parser


def run_acp(argv: Sequence[str]) -> int:
    ns = build_parser().parse_args(list(argv))
    handler: logging.Handler = (
        logging.FileHandler(ns.log, encoding="utf-8")
        if ns.log
        else logging.StreamHandler(sys.stderr)
    )
    logging.basicConfig(
        level=logging.DEBUG if ns.verbose else logging.INFO,
        handlers=[handler],
        format="%(asctime)s %(name)s %(levelname)s %(message)s",
    )
    from pycline.acp.agent import PyclineAgent
    from pycline.app.sessions.session import ConfigOverrides
    from pycline.app.settings.home import pycline_home

    flags = ConfigOverrides.from_args(ns)
    agent = PyclineAgent(flags, pycline_home())
    try:
        asyncio.run(_serve(agent))
    except KeyboardInterrupt:
        return 130
    return 0


async def _serve(agent: object) -> None:
    import acp

    from pycline.acp.agent import PyclineAgent

    assert isinstance(agent, PyclineAgent)
    from pycline.acp.wire import StdioTransport

    reader, writer = await _protocol_streams()
    try:
        # Not every Agent method is offered (no fork): the SDK answers those "method not found".
        transport = StdioTransport(reader, writer)
        await acp.run_agent(cast("acp.Agent", agent), transport, use_unstable_protocol=True)
    finally:
        await agent.shutdown()


LINE_LIMIT = 50 * 1024 * 1024  # one JSON-RPC message per line; images make long lines


async def _protocol_streams() -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """stdin/stdout as streams, with stdout kept for the protocol alone.

    The protocol gets its own copy of file descriptor 1, and descriptor 1 (with `sys.stdout`)
    then points at stderr: a stray print, or a child process that inherits stdout, cannot
    corrupt the message stream.
    """
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=LINE_LIMIT)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    sys.stdout.flush()
    protocol_fd = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    pipe = os.fdopen(protocol_fd, "wb", buffering=0)
    transport, protocol = await loop.connect_write_pipe(asyncio.streams.FlowControlMixin, pipe)
    return reader, asyncio.StreamWriter(transport, protocol, None, loop)
