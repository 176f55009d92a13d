"""Running the tool calls of one reply, XML or native, with the per-call features around them.

An XML reply holds one call (the stream stops after it). A native reply may hold several: they
run in order, each with its own approval, and every call gets a result (the APIs require one per
call). After a call that ends the turn — denied, the task completed, the mode switched — the rest
are not run; their results say so.
"""

from __future__ import annotations

import dataclasses
import time
from typing import TYPE_CHECKING

from pycline.core import turn
from pycline.core.handoffs import HandoffResult, as_content, run_handoff
from pycline.core.loops import LOOP_WARNING
from pycline.core.streaming import Reply
from pycline.core.subagents import Assignment, agent_assignment, prompts_of, run_subagents
from pycline.errors import ToolError
from pycline.events import ToolFinished, ToolStarted
from pycline.messages import Content, Message, TextContent, ToolUseContent
from pycline.parsing.blocks import ToolUseBlock
from pycline.prompts import responses
from pycline.tools.base import ToolResult
from pycline.tools.handoff import CustomAgentTool

if TYPE_CHECKING:
    from pycline.core.task import Task

SKIPPED = "This tool call was not run: an earlier call in the same reply {why}."


def history_message(reply: Reply, ts: float) -> Message:
    """The assistant turn as kept in history: native calls as tool_use blocks."""
    if not reply.calls:
        return Message.assistant(turn.history_text(reply), ts=ts)
    text = reply.text.strip()
    content: list[Content] = [TextContent(text)] if text else []
    content += [ToolUseContent(c.id, c.name, tuple(c.params.items())) for c in reply.calls]
    return Message("assistant", tuple(content), ts)


async def run_reply(task: Task, reply: Reply) -> turn.Step:
    if not reply.calls:
        block = next((b for b in reply.blocks if isinstance(b, ToolUseBlock)), None)
        if block is None:
            return await turn.run_first_tool(task, reply)
        if task.facts(block.name).effect == "handoff":
            done = await _handoff(task, block.name, block.params)
            return turn.Step([as_content(done, None)])
        step = await _run_with_hooks(task, reply, block.name, block.params)
        return _observe(task, block.name, block.params, step)
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
        if task.facts(call.name).effect == "handoff":
            done = await _handoff(task, call.name, call.params)
            if done.replaced_history:  # the calls these results answer are gone from history
                out = [TextContent(c.text) if isinstance(c, TextContent) else c for c in out]
            out.append(as_content(done, call.id))
            stop_why = "handed the conversation over" if not done.declined else ""
            continue
        block = ToolUseBlock(call.name, dict(call.params), partial=False)
        single = Reply("", [block], None, False, call.id)
        ran = await _run_with_hooks(task, single, call.name, call.params)
        step = _observe(task, call.name, call.params, ran)
        first, *rest = step.content or [TextContent("")]
        text = first.text if isinstance(first, TextContent) else ""
        out += [TextContent(text, call.id), *rest]
        mistakes += step.mistake
        last = step
        stop_why = _stop_reason(step, text)
    return dataclasses.replace(last, content=out, mistake=mistakes == len(reply.calls))


async def _handoff(task: Task, name: str, params: dict[str, str]) -> HandoffResult:
    done = await run_handoff(task, name, params.get("context", ""))
    if done.next_task is not None:
        task.features.next_task = done.next_task
    return done


async def _run_with_hooks(task: Task, reply: Reply, name: str, params: dict[str, str]) -> turn.Step:
    """The call between the PreToolUse and PostToolUse hooks; their context joins the result."""
    refused = await task.features.before_tool(task, name, params)
    if refused:
        text = f"{responses.tool_header(name)}\n{responses.tool_error(name, refused)}"
        return turn.Step([TextContent(text)], mistake=True)
    started = time.monotonic()
    if task.facts(name).effect == "delegate":
        step = await _subagents(task, name, params, reply.tool_call_id)
    else:
        step = await turn.run_first_tool(task, reply)
    first = step.content[0] if step.content else None
    if not isinstance(first, TextContent):
        return step
    rest = step.content[1:]
    ms = int((time.monotonic() - started) * 1000)
    extra = await task.features.after_tool(task, name, params, first.text, not step.mistake, ms)
    if not extra:
        return step
    noted = TextContent(f"{first.text}\n\n{extra}", first.tool_use_id)
    return dataclasses.replace(step, content=[noted, *rest])


async def _subagents(task: Task, name: str, params: dict[str, str], call_id: str) -> turn.Step:
    summary = name
    task.say(ToolStarted(summary, summary, call_id))
    tool = task.tools.get(name)
    if isinstance(tool, CustomAgentTool):
        assignment = agent_assignment(tool.agent, params.get("prompt", ""))
    else:
        assignment = Assignment(tuple(prompts_of(params)))
    try:
        result = await run_subagents(task, assignment)
    except ToolError as exc:
        result = ToolResult(responses.tool_error(summary, str(exc)), is_error=True)
    ok = not (result.is_error or result.denied)
    task.say(ToolFinished(summary, summary, ok, result.text, call_id))
    body = f"{responses.tool_header(summary)}\n{result.text}"
    return turn.Step([TextContent(body)], mistake=result.is_error)


def _observe(task: Task, name: str, params: dict[str, str], step: turn.Step) -> turn.Step:
    """Focus-chain update and loop detection for one call that ran."""
    progress = task.features.focus.update(params.get("task_progress"))
    if progress is not None:
        task.say(progress)
    verdict = task.features.loops.observe(name, params)
    if verdict == "ok" or not step.content:
        return step
    first, *rest = step.content
    if not isinstance(first, TextContent):
        return step
    warning = LOOP_WARNING.format(count=task.features.loops.count)
    noted = TextContent(f"{first.text}\n\n{warning}", first.tool_use_id)
    return dataclasses.replace(step, content=[noted, *rest])


def _stop_reason(step: turn.Step, text: str) -> str:
    if step.completed:
        return "completed the task"
    if step.next_mode is not None:
        return "switched the mode"
    if responses.DENIED in text:
        return "was denied by the user"
    return ""
