"""What the user sees while a reply streams: prose as it arrives, never half a tag."""

from __future__ import annotations

from pycline.core.streaming import stream_reply
from pycline.events import Event, ReasoningDelta, TextDelta, TextDone
from pycline.messages import Message
from pycline.parsing.blocks import ToolUseBlock
from pycline.providers.scripted import ScriptedProvider, ScriptedReply


async def collect(reply: str | ScriptedReply, chunk_size: int) -> tuple[list[Event], object]:
    events: list[Event] = []
    provider = ScriptedProvider.of(reply, chunk_size=chunk_size)
    result = await stream_reply(provider, "sys", [Message.user("hi")], events.append)
    return events, result


async def test_prose_streams_without_tag_fragments() -> None:
    text = "<thinking>Look first.</thinking>\nLet me check.\n<read_file>\n<path>a.py</path>\n</read_file>"
    for size in (1, 2, 3, 7, 100):
        events, reply = await collect(text, size)
        shown = "".join(e.text for e in events if isinstance(e, TextDelta))
        assert "<" not in shown, (size, shown)
        assert "Let me check." in shown
        done = [e.text for e in events if isinstance(e, TextDone)]
        assert done == ["Look first.\nLet me check."]
        assert isinstance(reply.blocks[-1], ToolUseBlock)  # type: ignore[attr-defined]
        assert reply.blocks[-1].params == {"path": "a.py"}  # type: ignore[attr-defined]


async def test_reasoning_is_shown_separately() -> None:
    events, _ = await collect(ScriptedReply(text="ok", reasoning="hmm"), 5)
    assert [e.text for e in events if isinstance(e, ReasoningDelta)] == ["hmm"]


async def test_reading_stops_after_first_complete_tool() -> None:
    first = "<list_files>\n<path>.</path>\n</list_files>"
    text = first + "\nAnd more:\n<read_file>\n<path>b</path>\n</read_file>"
    _, reply = await collect(text, 4)
    assert reply.cut_after_tool  # type: ignore[attr-defined]
    assert [b.kind for b in reply.blocks] == ["tool_use"]  # type: ignore[attr-defined]
