"""Streaming parser cost: a ~200 KB reply fed in 20-character chunks, `blocks` read after each.

Compares with re-parsing the whole prefix on every chunk (what Cline does) on a smaller reply,
since that approach is quadratic and would take minutes at full size.
"""

from __future__ import annotations

import time

from pycline.parsing.blocks import ToolUseBlock
from pycline.parsing.stream import StreamingParser, parse_assistant_message

CHUNK = 20


def build_reply(size: int) -> str:
    """Prose, a large write_to_file, then a completion: the shape of a real long reply."""
    prose = (
        "I looked at `src/app.py` and the tests. The handler maps `request -> response` and the "
        "check `if a < b and b > c` is inverted; <thinking>fix it first</thinking> the `<path>` "
        "tags in the docs are examples, not calls.\n\n"
    )
    code = (
        "def handle(request: Request) -> Response:\n"
        '    """Route one request; see <docs/routing.md>."""\n'
        "    if request.size > LIMIT and not request.streaming:\n"
        "        return Response(413, body=f'<error>{request.size}</error>')\n"
        "    return ROUTES.get(request.path, not_found)(request)\n\n"
    )
    head = prose * max(1, size // 10 // len(prose))
    body_size = size - len(head) - 400
    body = (code * (body_size // len(code) + 1))[:body_size]
    body = body[: len(body) // 2] + "\nTEMPLATE = '<content>x</content>'\n" + body[len(body) // 2 :]
    return (
        f"{head}<write_to_file>\n<path>src/app.py</path>\n<content>\n{body}\n</content>\n"
        "<task_progress>\n- [x] Read the code\n- [ ] Fix the handler\n</task_progress>\n"
        "</write_to_file>\n\nThat is the whole file.\n<attempt_completion>\n<result>\n"
        "Fixed the inverted size check.\n</result>\n</attempt_completion>"
    )


def stream(text: str) -> tuple[float, int]:
    parser = StreamingParser()
    reads = 0
    start = time.perf_counter()
    for i in range(0, len(text), CHUNK):
        parser.feed(text[i : i + CHUNK])
        reads += len(parser.blocks)
    elapsed = time.perf_counter() - start
    assert parser.blocks == parse_assistant_message(text)
    return elapsed, reads


def feed_only(text: str) -> float:
    parser = StreamingParser()
    start = time.perf_counter()
    for i in range(0, len(text), CHUNK):
        parser.feed(text[i : i + CHUNK])
    elapsed = time.perf_counter() - start
    parser.blocks  # noqa: B018 - the final parse, outside the timing
    return elapsed


def naive(text: str) -> float:
    start = time.perf_counter()
    for i in range(CHUNK, len(text) + CHUNK, CHUNK):
        parse_assistant_message(text[:i])
    return time.perf_counter() - start


def main() -> None:
    text = build_reply(200_000)
    blocks = parse_assistant_message(text)
    write = next(b for b in blocks if isinstance(b, ToolUseBlock))
    mb = len(text) / 1_000_000
    chunks = -(-len(text) // CHUNK)
    print(
        f"reply: {len(text):,} chars, {chunks:,} chunks of {CHUNK}; blocks: "
        f"{[b.kind for b in blocks]}; write_to_file content {len(write.params['content']):,} chars"
    )
    elapsed, _ = min((stream(text) for _ in range(3)), key=lambda r: r[0])
    print(
        f"incremental, blocks read after every chunk: {elapsed * 1000:.0f} ms "
        f"({elapsed / mb * 1000:.0f} ms/MB, {elapsed / chunks * 1e6:.1f} µs/chunk)"
    )
    fed = min(feed_only(text) for _ in range(3))
    print(
        f"incremental, feed() only:                   {fed * 1000:.0f} ms "
        f"({fed / mb * 1000:.0f} ms/MB)"
    )
    for size in (10_000, 40_000):
        small = build_reply(size)
        inc = min(stream(small)[0] for _ in range(3))
        re = naive(small)
        print(
            f"{len(small):>7,} chars: incremental {inc * 1000:7.1f} ms, "
            f"re-parse every prefix {re * 1000:8.0f} ms ({re / inc:.0f}x)"
        )


if __name__ == "__main__":
    main()
