"""Closing an SDK's response stream, and the async generators that iterate it, ourselves.

An async generator left suspended when its reader stops early (a reply cut after its first tool
call, an error, a cancelled turn) is finalised by the garbage collector whenever it runs, at
exit too, when the event loop is gone and closing it raises. So whoever iterates a stream closes
it with `aclose()`: the generator it iterated with, the SDK's own one behind the stream, then the
HTTP response.
"""

from __future__ import annotations

import contextlib


async def close_stream(stream: object, *iterating: object) -> None:
    """Close `iterating` (the generators that read `stream`, outermost first), the SDK's
    generator inside `stream` (the OpenAI and Anthropic SDKs keep it as `_iterator`), then
    `stream` itself."""
    for generator in (*iterating, getattr(stream, "_iterator", None)):
        aclose = getattr(generator, "aclose", None)
        if aclose is not None:
            with contextlib.suppress(RuntimeError):  # still running: its reader closes it
                await aclose()
    close = getattr(stream, "close", None)
    if close is not None:
        await close()
