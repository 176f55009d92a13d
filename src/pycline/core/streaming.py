"""One model request: stream, parse incrementally, show prose as it arrives, stop after a tool."""

from __future__ import annotations

import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from pycline.errors import ProviderError
from pycline.events import Event, ReasoningDelta, TextDelta, TextDone, ToolPartial
from pycline.messages import Message
from pycline.parsing.blocks import AssistantBlock, TextBlock, ToolUseBlock
from pycline.parsing.stream import StreamingParser
from pycline.providers.base import Provider, ReasoningChunk, TextChunk, UsageChunk


@dataclass(slots=True)
class Reply:
    text: str
    blocks: list[AssistantBlock]
    usage: UsageChunk | None
    cut_after_tool: bool  # the model went on after its first tool call; we stopped reading
    tool_call_id: str = ""  # the id the first tool call's events share ("" without a tool call)


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


class _ToolWatcher:
    """Reports the first tool call while it streams in, under one id from its first token on."""

    def __init__(self, say: Callable[[Event], None]) -> None:
        self._say = say
        self.tool_call_id = ""
        self._shown: dict[str, str] = {}

    def update(self, blocks: Sequence[AssistantBlock]) -> None:
        first = _first_tool_index(blocks)
        if first is None:
            return
        block = blocks[first]
        assert isinstance(block, ToolUseBlock)
        if not self.tool_call_id:
            self.tool_call_id = new_tool_call_id()
        elif block.params == self._shown:
            return
        self._shown = dict(block.params)
        self._say(ToolPartial(self.tool_call_id, block.name, self._shown))


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
) -> Reply:
    parser = StreamingParser()
    emitter = _ProseEmitter(say)
    tools = _ToolWatcher(say)
    received: list[str] = []
    usage: UsageChunk | None = None
    cut = False
    stream = provider.stream(system, messages)
    try:
        async for chunk in stream:
            match chunk:
                case TextChunk(text=text):
                    received.append(text)
                    parser.feed(text)
                    blocks = parser.blocks
                    emitter.update(blocks)
                    tools.update(blocks)
                    first = _first_tool_index(blocks)
                    if first is not None and not blocks[first].partial and _has_more(blocks, first):
                        cut = True
                        break
                case ReasoningChunk(text=text):
                    say(ReasoningDelta(text))
                case UsageChunk() as u:
                    usage = u
    except ProviderError as exc:
        raise StreamFailed(exc, "".join(received)) from exc
    finally:
        aclose = getattr(stream, "aclose", None)
        if aclose is not None:
            await aclose()
    blocks = parser.finish()
    if cut:
        first = _first_tool_index(blocks)
        assert first is not None
        blocks = blocks[: first + 1]
    emitter.finish(blocks)
    tools.update(blocks)  # the parameters as finally parsed
    return Reply("".join(received), blocks, usage, cut, tools.tool_call_id)


def _has_more(blocks: Sequence[AssistantBlock], tool_index: int) -> bool:
    return any(isinstance(b, ToolUseBlock) or b.content.strip() for b in blocks[tool_index + 1 :])
