"""What building one OpenAI request costs at turn N, with the official SDK and a loopback server.

Run: .venv/bin/python bench/request_overhead.py [--turns 800]

A history of N turns (each a 2 KB file written and its result) is sent to the fake OpenAI server
from `tests/fakes` (it speaks the real wire format). Reported: the median CPU time of the calling
thread (the event loop's; the server's thread is not counted) until a first streamed chunk,
through `OpenAIProvider` (history passed as plain JSON data) and through the SDK's typed
`messages=` argument (how the provider sent it before), each minus the same for a one-message
request: what the history itself adds to every request.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.fakes.openai_server import FakeOpenAI

from pycline.messages import Message
from pycline.providers.base import ModelInfo
from pycline.providers.convert import to_openai
from pycline.providers.openai_compat import OpenAIProvider

CONTENT = "".join(f"line {i:04d} of a generated file, long enough to matter\n" for i in range(36))
SYSTEM = "You are a coding agent. " * 400


def history(turns: int) -> list[Message]:
    out = [Message.user("<task>write many files</task>")]
    for i in range(turns):
        out.append(
            Message.assistant(
                f"<write_to_file>\n<path>f{i}.txt</path>\n<content>\n{CONTENT}</content>\n</write_to_file>"
            )
        )
        out.append(
            Message.user(
                f"[write_to_file for 'f{i}.txt'] Result:\nThe file was saved.\n{CONTENT[:400]}"
            )
        )
    return out


async def through_provider(provider: OpenAIProvider, messages: list[Message]) -> float:
    started = time.thread_time()
    stream = provider.stream(SYSTEM, messages)
    await anext(stream)
    elapsed = time.thread_time() - started
    async for _ in stream:
        pass
    return elapsed


async def through_typed_argument(provider: OpenAIProvider, messages: list[Message]) -> float:
    client = provider._get_client()
    started = time.thread_time()
    response: Any = await client.chat.completions.create(
        model="gpt-4o", messages=to_openai(SYSTEM, messages), stream=True, temperature=0.0
    )
    async for _ in response:
        break
    elapsed = time.thread_time() - started
    await response.close()
    return elapsed


async def measure(turns: int, repeats: int) -> dict[str, float]:
    long, short = history(turns), history(0)
    with FakeOpenAI(["ok"] * (repeats * 4 + 2)) as server:
        provider = OpenAIProvider(
            api_key="k",
            model=ModelInfo(id="gpt-4o", context_window=10**8),
            base_url=server.base_url,
        )
        await through_provider(provider, short)  # warm up: imports, connection
        results: dict[str, list[float]] = {"data": [], "typed": [], "data0": [], "typed0": []}
        for _ in range(repeats):
            results["data"].append(await through_provider(provider, long))
            results["data0"].append(await through_provider(provider, short))
            results["typed"].append(await through_typed_argument(provider, long))
            results["typed0"].append(await through_typed_argument(provider, short))
        await provider.aclose()
    med = {k: statistics.median(v) * 1000 for k, v in results.items()}
    return {
        "json data": med["data"] - med["data0"],
        "typed messages=": med["typed"] - med["typed0"],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--turns", type=int, default=800)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    for name, ms in asyncio.run(measure(args.turns, args.repeats)).items():
        print(f"{args.turns} turns, history as {name:<16} +{ms:7.1f} ms per request")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
