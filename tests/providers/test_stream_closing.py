"""Whoever iterates a provider's stream closes it with `aclose()`: a reply cut after its first
tool call, a stream that breaks, a cancelled turn leave no generator of ours, nor the SDK's own
stream, for the garbage collector to finalise (at exit, that raised "async generator already
executing"). Played with the real SDKs against loopback servers speaking their wire formats."""

from __future__ import annotations

import asyncio
import gc
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pycline.core.streaming import stream_reply
from pycline.messages import Message
from pycline.providers.factory import ProviderSettings, make_provider
from tests.fakes.anthropic_server import FakeAnthropic
from tests.fakes.openai_server import FakeOpenAI

# Two tool calls: the reply is cut after the first, with the stream still open.
CUT = "<read_file>\n<path>a</path>\n</read_file>\n" * 2 + "more text " * 300
MODELS = {"openai": "gpt-4o", "anthropic": "claude-sonnet-4-6"}


def _suspended(loop: asyncio.AbstractEventLoop) -> list[str]:
    """Async generators first iterated on `loop` and neither finished nor closed: ours (any
    under pycline) and the SDK's stream."""
    gc.collect()
    names = []
    for agen in list(getattr(loop, "_asyncgens", ())):
        if agen.ag_frame is None:
            continue
        where = agen.ag_code.co_filename
        if "/pycline/" in where or agen.ag_code.co_name == "__stream__":
            names.append(f"{agen.ag_code.co_qualname} ({where})")
    return names


@pytest.mark.parametrize("wire", ["openai", "anthropic"])
def test_a_cut_reply_leaves_no_stream_open(wire: str) -> None:
    fake = FakeOpenAI([CUT]) if wire == "openai" else FakeAnthropic([CUT])

    async def main() -> list[str]:
        with fake as server:
            provider = make_provider(
                ProviderSettings(wire, MODELS[wire], base_url=server.base_url, api_key="k")
            )
            reply = await stream_reply(provider, "sys", [Message.user("hi")], lambda _: None)
            assert reply.text.count("<read_file>") == 1  # cut after the first call
            return _suspended(asyncio.get_running_loop())

    assert asyncio.run(main()) == []


def test_pycline_run_over_cut_replies_prints_no_finaliser_error(
    isolated_home: Path, workspace: Path
) -> None:
    replies = [CUT.replace("<path>a</path>", f"<path>f{i}</path>") for i in range(4)]
    for i in range(4):
        (workspace / f"f{i}").write_text("x\n", encoding="utf-8")
    replies.append("<attempt_completion>\n<result>done</result>\n</attempt_completion>")
    with FakeOpenAI(replies) as server:
        (isolated_home / "settings").mkdir()
        (isolated_home / "settings" / "settings.json").write_text(
            json.dumps({"provider": "openai", "model": "gpt-4o", "baseUrl": server.base_url}),
            encoding="utf-8",
        )
        env = {**os.environ, "OPENAI_API_KEY": "sk-test"}
        proc = subprocess.run(
            [sys.executable, "-m", "pycline", "run", "read the files"],
            cwd=workspace, env=env, capture_output=True, text=True, timeout=120,
            stdin=subprocess.DEVNULL,
        )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    for sign in ("Exception ignored", "already executing", "was never awaited", "Traceback"):
        assert sign not in proc.stderr, proc.stderr
