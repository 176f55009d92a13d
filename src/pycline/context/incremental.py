"""`lighten` kept up to date as history grows, so a request costs the same at turn 800 as at turn 8.

`lighten` is a pure function of the messages sent, but recomputing it from the whole history on
every request makes each request cost grow with the task. History mostly only grows, and a new
message changes the status of few older ones: the previous latest copy of a file it copies again,
the previous run of a call it repeats, the previous last user message (its environment details
go), steps crossing the `RECENT_TURNS` age, and the old long outputs whose note counts their age.
`LightView` keeps each message's lightened form and the collapse scan's state, and redoes only
those. When the messages are not an extension of the last ones (truncation, condensing, a rewind)
it starts again from the first message. `lighten` stays the definition: the tests drive long
histories through both and compare every request, and the rare shapes this bookkeeping does not
model (a dropped environment block that held a file copy, a note that changes a result's header)
fall back to it.
"""

from __future__ import annotations

from bisect import bisect_right
from collections import Counter
from collections.abc import Sequence

from pycline.context.collapse import HEAD, calls_of, digest, spent_step
from pycline.context.dedupe import NOTE, copies_of, replace_spans
from pycline.context.lighten import (
    CUT_WHEN_RERUN,
    OLD_OUTPUT_CHARS,
    OLD_OUTPUT_MARKER,
    RECENT_TURNS,
    RERUN_NOTE,
    CallKey,
    call_key,
    drop_stale,
    lighten,
    shortened,
    xml_call,
)
from pycline.context.results import parse_header
from pycline.messages import Message, TextContent, ToolUseContent

_MARKERS = (NOTE, RERUN_NOTE, OLD_OUTPUT_MARKER)
_NO_COUNTS: Counter[str] = Counter()

CopyId = tuple[int, int, int]  # message, block, copy within the block
ResultId = tuple[int, int]  # message, block


class _Unmodelled(Exception):
    """A history shape the incremental bookkeeping does not follow; `lighten` handles it."""


class LightView:
    """The lightened view of a growing list of messages; `update` equals `lighten(messages)`."""

    def __init__(self) -> None:
        self._reset()

    def _reset(self) -> None:
        self._src: list[Message] = []
        self._fallback = False
        self._stale_dropped: list[Message] = []  # messages after the per-request context rule
        self._copies: list[tuple[tuple[int, str, tuple[int, int], bool], ...]] = []
        self._results: list[tuple[tuple[int, CallKey], ...]] = []
        self._xml: list[CallKey | None] = []  # the XML call a user message may answer
        self._native: dict[str, CallKey] = {}
        self._latest_copy: dict[str, CopyId] = {}
        self._latest_result: dict[CallKey, ResultId] = {}
        self._users: list[int] = []
        self._ageing: set[int] = set()  # messages holding an old output whose note counts turns
        self._view: list[Message] = []  # each message as lightened, before collapsing
        self._spent: list[bool] = []  # the step starting at i is spent
        # The collapse scan: state before each message it visits (None: inside a left-out step).
        self._scan: list[tuple[int, Counter[str]] | None] = []
        self._kept: list[int] = []
        self._digests: dict[int, Counter[str]] = {}  # position in `_kept` -> steps left out after
        self._aged_until = 0  # steps whose result is before this index are RECENT_TURNS old

    def update(self, messages: Sequence[Message]) -> list[Message]:
        known = len(self._src)
        if len(messages) < known or list(messages[:known]) != self._src:
            self._reset()
            known = 0
        if self._fallback:
            self._src.extend(messages[known:])
            return lighten(messages)
        try:
            return self._grow(messages, known)
        except _Unmodelled:
            self._reset()
            self._fallback = True
            self._src.extend(messages)
            return lighten(messages)

    # --- growing ------------------------------------------------------------------------------

    def _grow(self, messages: Sequence[Message], known: int) -> list[Message]:
        dirty: set[int] = set()
        for i in range(known, len(messages)):
            self._append(i, messages[i], dirty)
        if len(messages) > known:
            dirty.update(i for i in self._ageing if self._users_after(i) >= RECENT_TURNS)
        restart = known - 1 if len(messages) > known else len(messages)
        for i in sorted(dirty):
            if i >= len(self._view):
                self._view.append(self._lightened(i))
                self._spent.append(False)
            else:
                self._view[i] = self._lightened(i)
        steps = {d for changed in dirty for d in (changed - 1, changed)}
        for i in sorted(d for d in steps if 0 <= d < len(self._view) - 1):
            spent = spent_step(self._view[i], self._view[i + 1], _MARKERS)
            if spent != self._spent[i]:
                self._spent[i] = spent
                restart = min(restart, i)
        aged_until = self._aged_limit()
        if aged_until != self._aged_until:
            restart = min(restart, self._aged_until - 1)
            self._aged_until = aged_until
        self._collapse(max(restart, 0))
        return self._output()

    def _append(self, i: int, message: Message, dirty: set[int]) -> None:
        self._src.append(message)
        self._stale_dropped.append(message)
        dirty.add(i)
        if message.role == "assistant":
            self._copies.append(())
            self._results.append(())
            self._xml.append(None)
            for block in message.content:
                if isinstance(block, ToolUseContent):
                    key = call_key(block.name, block.params)
                    if key is not None:
                        self._native[block.id] = key
            return
        if self._users and self._users[-1] >= 1:
            self._drop_context_of(self._users[-1], dirty)
        self._users.append(i)
        before = self._src[i - 1] if i > 0 else None
        xml = None
        if (
            before is not None
            and before.role == "assistant"
            and not any(isinstance(b, ToolUseContent) for b in before.content)
        ):
            xml = xml_call(before)
        self._xml.append(xml)
        self._copies.append(self._copies_in(i, message))
        self._results.append(self._results_in(message, xml))
        within: Counter[int] = Counter()
        for j, path, _, done in self._copies[i]:
            k = within[j]
            within[j] += 1
            if done:
                continue
            previous = self._latest_copy.get(path)
            if previous is not None:
                dirty.add(previous[0])
            self._latest_copy[path] = (i, j, k)
        for j, key in self._results[i]:
            previous_result = self._latest_result.get(key)
            if previous_result is not None:
                dirty.add(previous_result[0])
            self._latest_result[key] = (i, j)

    def _drop_context_of(self, i: int, dirty: set[int]) -> None:
        """The previous last user message loses its per-request context (`drop_stale`)."""
        dropped = drop_stale(self._src[i])
        if dropped is self._src[i]:
            return
        xml = self._xml[i]
        if self._copies_in(i, dropped) != self._copies[i]:
            raise _Unmodelled("a dropped context block held a file copy")
        if self._results_in(dropped, xml) != self._results[i]:
            raise _Unmodelled("dropping a context block moved a tool result")
        self._stale_dropped[i] = dropped
        dirty.add(i)

    def _copies_in(
        self, i: int, message: Message
    ) -> tuple[tuple[int, str, tuple[int, int], bool], ...]:
        if i < 1:
            return ()
        return tuple(
            (j, path, span, done)
            for j, block in enumerate(message.content)
            if isinstance(block, TextContent)
            for path, span, done in copies_of(block.text)
        )

    def _results_in(self, message: Message, xml: CallKey | None) -> tuple[tuple[int, CallKey], ...]:
        found: list[tuple[int, CallKey]] = []
        for j, block in enumerate(message.content):
            if not isinstance(block, TextContent):
                continue
            if block.tool_use_id is not None:
                key = self._native.get(block.tool_use_id)
                if key is not None:
                    found.append((j, key))
            elif j == 0 and xml is not None and parse_header(block.text) is not None:
                found.append((j, xml))
        return tuple(found)

    # --- one message ----------------------------------------------------------------------------

    def _lightened(self, i: int) -> Message:
        message = self._stale_dropped[i]
        self._ageing.discard(i)
        if i < 1 or message.role != "user":
            return message
        content = list(message.content)
        spans: dict[int, list[tuple[int, int]]] = {}
        counters: Counter[int] = Counter()
        for j, path, span, done in self._copies[i]:
            k = counters[j]
            counters[j] += 1
            if not done and self._latest_copy.get(path) != (i, j, k):
                spans.setdefault(j, []).append(span)
        for j, block_spans in spans.items():
            block = content[j]
            assert isinstance(block, TextContent)
            content[j] = TextContent(
                replace_spans(block.text, tuple(sorted(block_spans))), block.tool_use_id
            )
        if spans and self._xml[i] is not None:
            first, was = content[0], message.content[0]
            if (
                isinstance(first, TextContent)
                and isinstance(was, TextContent)
                and (parse_header(first.text) is None) != (parse_header(was.text) is None)
            ):
                raise _Unmodelled("a note changed whether a block is a tool result")
        turns = self._users_after(i)
        for j, key in reversed(self._results[i]):
            block = content[j]
            assert isinstance(block, TextContent)
            seen = self._latest_result[key] != (i, j)
            if not seen and _long_output(block.text):
                self._ageing.add(i)
            text = shortened(block.text, seen, turns, cut_rerun=key[0] in CUT_WHEN_RERUN)
            if text is not None:
                content[j] = TextContent(text, block.tool_use_id)
        if not spans and all(a is b for a, b in zip(content, message.content, strict=True)):
            return message
        return Message(message.role, tuple(content), message.ts)

    def _users_after(self, i: int) -> int:
        return len(self._users) - bisect_right(self._users, i)

    def _aged_limit(self) -> int:
        """Messages before this index have at least RECENT_TURNS user messages after them."""
        if len(self._users) < RECENT_TURNS:
            return 0
        return self._users[len(self._users) - RECENT_TURNS]

    # --- collapsing -----------------------------------------------------------------------------

    def _collapse(self, restart: int) -> None:
        """Redo `collapse_spent`'s scan from `restart` on, from the state saved there."""
        n = len(self._view)
        i = min(restart, len(self._scan))
        while i > 0 and (i >= len(self._scan) or self._scan[i] is None):
            i -= 1
        state = self._scan[i] if i < len(self._scan) else None
        kept_len, counts = state if state is not None else (0, _NO_COUNTS)
        left_out = Counter(counts)
        del self._kept[kept_len:]
        del self._scan[i:]
        for position in [p for p in self._digests if p >= kept_len - 1]:
            del self._digests[position]
        while i < n:
            self._scan.append((len(self._kept), Counter(left_out) if left_out else _NO_COUNTS))
            if i >= HEAD and i + 1 < n and i + 1 < self._aged_until and self._spent[i]:
                self._scan.append(None)
                left_out.update(calls_of(self._view[i]))
                i += 2
                continue
            if left_out:
                self._digests[len(self._kept) - 1] = left_out
                left_out = Counter()
            self._kept.append(i)
            i += 1
        if left_out:
            self._digests[len(self._kept) - 1] = left_out

    def _output(self) -> list[Message]:
        out = [self._view[i] for i in self._kept]
        for position, counts in self._digests.items():
            before = out[position]
            out[position] = Message(
                before.role, (*before.content, TextContent(digest(counts))), before.ts
            )
        return out


def _long_output(text: str) -> bool:
    header = parse_header(text)
    return len(text) - (header.end if header is not None else 0) > OLD_OUTPUT_CHARS
