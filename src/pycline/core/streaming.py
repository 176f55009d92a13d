"""One model request: stream, parse incrementally, show prose as it arrives, stop after a tool."""

from __future__ import annotations

import secrets
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from pycline.errors import ProviderError
from pycline.events import Event, ReasoningDelta, TextDelta, TextDone, ToolPartial
from pycline.messages import Message
from pycline.parsing.blocks import AssistantBlock, TextBlock, ToolUseBlock
from pycline.parsing.native import NativeCall, NativeCallAssembler, ToolDefinition
from pycline.parsing.stream import StreamingParser
from pycline.parsing.surrogates import SurrogateJoiner
from pycline.providers.base import Provider, ReasoningChunk, TextChunk, ToolCallChunk, UsageChunk
from pycline.providers.errors import OutputLimitReached


@dataclass(slots=True)
class Reply:
    text: str
    blocks: list[AssistantBlock]
    usage: UsageChunk | None
    cut_after_tool: bool  # the model went on after its first tool call; we stopped reading
    tool_call_id: str = ""  # the id the first tool call's events share ("" without a tool call)
    calls: list[NativeCall] = field(default_factory=list)  # native tool calls, in order
    # The reply stopped at the request's output limit (that many tokens, or -1 when unknown):
    # what arrived is kept, without the tool call it may have cut short.
    limit_reached: int = 0
    limit_feedback: str = ""  # what to tell the model about it ("": the output limit)
    # What a near-miss call's repair changed, to be told with its result (near_miss.py).
    corrections: tuple[str, ...] = ()


class StreamFailed(Exception):
    """The request failed; `partial` is the text that arrived before the failure."""

    def __init__(self, error: ProviderError, partial: str) -> None:
        super().__init__(str(error))
        self.error = error
        self.partial = partial


class _ProseEmitter:
    """Turns the growing text blocks into deltas for the UI.

    A partial text block may end in the start of a tag (`<read_fi`) that later turns out to be a
    tool call, so a trailing `<…` without `>` is held back until it resolves.
    """

    def __init__(self, say: Callable[[Event], None]) -> None:
        self._say = say
        self._shown: dict[int, str] = {}
        self._done: set[int] = set()

    def update(self, blocks: Sequence[AssistantBlock]) -> None:
        for i, block in enumerate(blocks):
            if not isinstance(block, TextBlock) or i in self._done:
                continue
            content = block.content
            if block.partial:
                cut = content.rfind("<")
                if cut != -1 and ">" not in content[cut:]:
                    content = content[:cut]
            shown = self._shown.get(i, "")
            if content.startswith(shown) and len(content) > len(shown):
                delta = content[len(shown) :]
                self._shown[i] = content
                visible = _strip_thinking_tags(delta)
                if visible:
                    self._say(TextDelta(visible))
            if not block.partial:
                self._done.add(i)
                final = _strip_thinking_tags(block.content).strip()
                if final:
                    self._say(TextDone(final))

    def finish(self, blocks: Sequence[AssistantBlock]) -> None:
        self.update(blocks)


def new_tool_call_id() -> str:
    return f"call_{secrets.token_hex(6)}"


class _Deltas:
    """Each streaming call's parameters as last shown, to say only what they gained since."""

    def __init__(self, say: Callable[[Event], None]) -> None:
        self._say = say
        self._shown: dict[str, dict[str, str]] = {}

    @property
    def ids(self) -> set[str]:
        return set(self._shown)

    def show(self, call_id: str, tool: str, params: Mapping[str, str]) -> None:
        shown = self._shown.get(call_id)
        first = shown is None
        shown = self._shown.setdefault(call_id, {})
        added: dict[str, str] = {}
        replaced: list[str] = []
        for name, value in params.items():
            old = shown.get(name)
            if old == value:
                continue
            if old is not None and value.startswith(old):
                added[name] = value[len(old) :]
            else:
                added[name] = value
                if old is not None:
                    replaced.append(name)
            shown[name] = value
        if added or first:
            self._say(ToolPartial(call_id, tool, added, tuple(replaced)))


class _ToolWatcher:
    """Reports the first tool call while it streams in, under one id from its first token on."""

    def __init__(self, deltas: _Deltas) -> None:
        self._deltas = deltas
        self.tool_call_id = ""

    def update(self, blocks: Sequence[AssistantBlock]) -> None:
        first = _first_tool_index(blocks)
        if first is None:
            return
        block = blocks[first]
        assert isinstance(block, ToolUseBlock)
        if not self.tool_call_id:
            self.tool_call_id = new_tool_call_id()
        self._deltas.show(self.tool_call_id, block.name, block.params)


class _Pacer:
    """Whether a streaming value grew enough to be read again.

    Reading a streaming call's parameters costs their whole length; read on every chunk, a long
    file written in four-character deltas costs the square of its length. While only one open
    value grows, it is read again once it has grown by an eighth (at least `MIN_GROWTH`
    characters): the reads then add up to a few times the value's length, and a UI still sees
    it grow. Whatever else changes (a value or tool opens or closes) is read at once.
    """

    MIN_GROWTH = 2048

    def __init__(self) -> None:
        self._shape: object = None
        self._read_at = 0

    def due(self, shape: object, size: int) -> bool:
        if shape != self._shape or size - self._read_at >= max(self.MIN_GROWTH, self._read_at // 8):
            self._shape, self._read_at = shape, size
            return True
        return False


def _strip_thinking_tags(text: str) -> str:
    return text.replace("<thinking>", "").replace("</thinking>", "")


def _first_tool_index(blocks: Sequence[AssistantBlock]) -> int | None:
    for i, b in enumerate(blocks):
        if isinstance(b, ToolUseBlock):
            return i
    return None


async def stream_reply(
    provider: Provider,
    system: str,
    messages: Sequence[Message],
    say: Callable[[Event], None],
    *,
    tools: Sequence[ToolDefinition] = (),
    temperature: float | None = None,
) -> Reply:
    """With `tools`, the model may call tools natively: every native call in the reply is kept.
    An XML tool call in the text still counts when the reply has no native call (models offered
    tools sometimes write one anyway); the first complete one ends the reply, as without tools."""
    parser = StreamingParser()
    emitter = _ProseEmitter(say)
    deltas = _Deltas(say)
    watcher = _ToolWatcher(deltas)
    xml_pacer = _Pacer()
    native_pacers: dict[int, _Pacer] = {}
    received: list[str] = []
    usage: UsageChunk | None = None
    cut = False
    limit_reached = 0
    limit_feedback = ""
    # Halves of a character split between two deltas are joined before anything sees them.
    joiner, reasoning = SurrogateJoiner(), SurrogateJoiner()
    native = NativeCallAssembler()
    stream = provider.stream(system, messages, tools=tools, temperature=temperature)
    try:
        async for chunk in stream:
            match chunk:
                case TextChunk(text=piece):
                    text = joiner.feed(piece)
                    received.append(text)
                    parser.feed(text)
                    if not xml_pacer.due(parser.shape, parser.size):
                        continue  # only an open tool parameter grew, by little
                    blocks = parser.blocks
                    emitter.update(blocks)
                    watcher.update(blocks)
                    first = _first_tool_index(blocks)
                    if first is not None and not blocks[first].partial and _has_more(blocks, first):
                        cut = True
                        break
                case ToolCallChunk(index=index, id=call_id, name=name, arguments=arguments):
                    native.feed(index, id=call_id, name=name, arguments=arguments)
                    pacer = native_pacers.setdefault(index, _Pacer())
                    if pacer.due(native.shape(index), native.size(index)):
                        _show_native(deltas, native, index)
                case ReasoningChunk(text=piece):
                    say(ReasoningDelta(reasoning.feed(piece)))
                case UsageChunk() as u:
                    usage = u
    except OutputLimitReached as exc:
        limit_reached = exc.limit or -1
        limit_feedback = exc.feedback
    except ProviderError as exc:
        raise StreamFailed(exc, "".join(received)) from exc
    finally:
        aclose = getattr(stream, "aclose", None)
        if aclose is not None:
            await aclose()
    if not cut and (rest := joiner.finish()):
        received.append(rest)
        parser.feed(rest)
    if limit_reached:
        # A tool call the limit cut short is never run (half a file is not a file).
        blocks = [b for b in parser.blocks if not (isinstance(b, ToolUseBlock) and b.partial)]
        blocks = [
            TextBlock(b.content, partial=False) if isinstance(b, TextBlock) else b for b in blocks
        ]
    else:
        blocks = parser.finish()
    if native:
        # Native calls win; prose is what the text said, any XML in it included.
        calls = native.finish()
        if limit_reached:
            calls = [c for c in calls if not c.error]
        for call in calls:  # the parameters as finally parsed
            if call.id in deltas.ids:
                deltas.show(call.id, call.name, call.params)
        prose = "".join(received).strip()
        text_blocks: list[AssistantBlock] = [TextBlock(prose, partial=False)] if prose else []
        emitter.finish([b for b in blocks if isinstance(b, TextBlock)])
        tool_blocks = [ToolUseBlock(c.name, dict(c.params), partial=False) for c in calls]
        return Reply(
            "".join(received),
            [*text_blocks, *tool_blocks],
            usage,
            False,
            calls[0].id if calls else "",
            calls,
            limit_reached,
            limit_feedback,
        )
    if cut:
        first = _first_tool_index(blocks)
        assert first is not None
        blocks = blocks[: first + 1]
    emitter.finish(blocks)
    watcher.update(blocks)  # the parameters as finally parsed
    return Reply(
        "".join(received),
        blocks,
        usage,
        cut,
        watcher.tool_call_id,
        [],
        limit_reached,
        limit_feedback,
    )


def _show_native(deltas: _Deltas, native: NativeCallAssembler, index: int) -> None:
    """A native call as it streams in, under the provider's id for it."""
    call_id, block = native.partial(index)
    if call_id and block.name:
        deltas.show(call_id, block.name, block.params)


def _has_more(blocks: Sequence[AssistantBlock], tool_index: int) -> bool:
    """Whether the model went on after its first call (the closing fence of a call it put in a
    code fence is not more)."""
    return any(
        isinstance(b, ToolUseBlock) or b.content.strip().strip("`").strip()
        for b in blocks[tool_index + 1 :]
    )
