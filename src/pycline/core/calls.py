"""Running the tool calls of one reply, XML or native, with the capabilities around each call.

An XML reply holds one call (the stream stops after it). A native reply may hold several: they
run in order, each with its own approval, and every call gets a result (the APIs require one per
call). After a call that ends the turn — denied, the task completed, the mode switched, the task
condensed or handed over — the rest are not run; their results say so. A call runs between the
capabilities' `before_tool` (which may refuse it) and `after_tool` (whose notes join its result);
a capability may run a call itself (a tool that acts on the task: hand-offs, sub-agents).
"""

from __future__ import annotations

import dataclasses
import time
from typing import Protocol

from pycline.core import turn
from pycline.core.capability import Capabilities, RunContext
from pycline.core.streaming import Reply
from pycline.messages import Content, Message, TextContent, ToolUseContent
from pycline.parsing import near_miss
from pycline.parsing.blocks import ToolUseBlock
from pycline.prompts import responses
from pycline.tools.base import ToolCall

SKIPPED = "This tool call was not run: an earlier call in the same reply {why}."


class CallHost(turn.TurnHost, Protocol):
    """What running a reply's calls needs from the task: one turn's needs, and its
    capabilities with the context they see."""

    @property
    def ctx(self) -> RunContext: ...

    @property
    def capabilities(self) -> Capabilities: ...


def history_message(reply: Reply, ts: float) -> Message:
    """The assistant turn as kept in history: native calls as tool_use blocks."""
    if not reply.calls:
        return Message.assistant(turn.history_text(reply), ts=ts)
    text = reply.text.strip()
    content: list[Content] = [TextContent(text)] if text else []
    content += [ToolUseContent(c.id, c.name, tuple(c.params.items())) for c in reply.calls]
    return Message("assistant", tuple(content), ts)


def _repaired(host: CallHost, reply: Reply) -> Reply:
    """The reply with its first call read as meant when it nearly followed the format (before
    any capability or hook sees the call, so they judge what will run)."""
    index = next((i for i, b in enumerate(reply.blocks) if isinstance(b, ToolUseBlock)), None)
    blocks = list(reply.blocks)
    corrections: list[str] = []
    if index is None:
        found = near_miss.json_call(reply.text, tuple(host.tools))
        if found is None:
            return reply
        blocks.append(found.block)
        index, corrections = len(blocks) - 1, found.corrections
    block = blocks[index]
    assert isinstance(block, ToolUseBlock)
    tool = host.tools.get(block.name)
    if tool is not None:
        params = tool.spec.params
        fixed = near_miss.repair_params(
            block, reply.text, [p.name for p in params], [p.name for p in params if p.required]
        )
        blocks[index] = fixed.block
        corrections += fixed.corrections
    if not corrections:
        return reply
    return dataclasses.replace(reply, blocks=blocks, corrections=tuple(corrections))


async def run_reply(host: CallHost, reply: Reply) -> turn.Step:
    if not reply.calls:
        reply = _repaired(host, reply)
        block = next((b for b in reply.blocks if isinstance(b, ToolUseBlock)), None)
        if block is None:
            return await turn.run_first_tool(host, reply)
        return await _run_call(host, reply, ToolCall(block.name, dict(block.params)))
    out: list[Content] = []
    last = turn.Step([])
    mistakes = 0
    stop_why = ""
    for call in reply.calls:
        if stop_why:
            out.append(TextContent(SKIPPED.format(why=stop_why), call.id))
            continue
        if call.error:
            header = responses.tool_header(call.name or "tool")
            body = responses.tool_error(call.name, call.error)
            out.append(TextContent(f"{header}\n{body}", call.id))
            mistakes += 1
            continue
        block = ToolUseBlock(call.name, dict(call.params), partial=False)
        single = _repaired(host, Reply("", [block], None, False, call.id))
        block = next(b for b in single.blocks if isinstance(b, ToolUseBlock))
        step = await _run_call(host, single, ToolCall(block.name, dict(block.params)))
        if step.replaced_history:  # the calls these results answer are gone from history
            out = [TextContent(c.text) if isinstance(c, TextContent) else c for c in out]
        first, *rest = step.content or [TextContent("")]
        text = first.text if isinstance(first, TextContent) else ""
        answered = None if step.replaced_history else call.id
        out += [TextContent(text, answered), *rest]
        mistakes += step.mistake
        last = step
        stop_why = _stop_reason(step, text)
    return dataclasses.replace(last, content=out, mistake=mistakes == len(reply.calls))


async def _run_call(host: CallHost, reply: Reply, call: ToolCall) -> turn.Step:
    """One call between the capabilities' `before_tool` and `after_tool`."""
    ctx, capabilities = host.ctx, host.capabilities
    refused = await capabilities.before_tool(ctx, call)
    if refused:
        text = f"{responses.tool_header(call.name)}\n{responses.tool_error(call.name, refused)}"
        return turn.Step([TextContent(text)], mistake=True)
    started = time.monotonic()
    runner = capabilities.runner(ctx, call.name)
    answered = await capabilities.answer_instead(ctx, call, reply.tool_call_id)
    if answered is not None:
        step = answered
    elif runner is not None:
        step = await runner.run_tool(ctx, call, reply.tool_call_id)
    else:
        step = await turn.run_first_tool(host, reply)
    first = step.content[0] if step.content else None
    result = first.text if isinstance(first, TextContent) else ""
    ms = int((time.monotonic() - started) * 1000)
    note = await capabilities.after_tool(ctx, call, result, not step.mistake, ms)
    if not note or not isinstance(first, TextContent):
        return step
    noted = TextContent(f"{first.text}\n\n{note}", first.tool_use_id)
    return dataclasses.replace(step, content=[noted, *step.content[1:]])


def _stop_reason(step: turn.Step, text: str) -> str:
    if step.completed:
        return "completed the task"
    if step.next_mode is not None:
        return "switched the mode"
    if step.handed_over:
        return "handed the conversation over"
    if responses.DENIED in text:
        return "was denied by the user"
    return ""
