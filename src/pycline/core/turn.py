"""What happens with one reply: run its first tool and build the next user message."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from pycline.core import modes
from pycline.core.modes import Mode
from pycline.errors import PeerToolError, ToolError
from pycline.events import Event, ToolFinished, ToolStarted
from pycline.messages import Content, TextContent
from pycline.parsing.blocks import ToolUseBlock
from pycline.prompts import responses
from pycline.tools.base import Interrupted, Tool, ToolCall, ToolContext, ToolFacts, ToolResult
from pycline.workspace.paths import Workspace

if TYPE_CHECKING:
    from pycline.core.streaming import Reply


class TurnHost(Protocol):
    """What one turn needs from the task running it."""

    @property
    def tools(self) -> Mapping[str, Tool]: ...

    @property
    def mode(self) -> Mode: ...

    @property
    def workspace(self) -> Workspace: ...

    def facts(self, name: str) -> ToolFacts:
        """The facts of the tool `name` in any mode (a tool another mode offers is refused with
        the reason)."""
        ...

    def say(self, event: Event) -> None: ...

    def tool_context(self, call_id: str = "") -> ToolContext:
        """The context of one call (`call_id`: its output and questions carry it)."""
        ...

    def note_path(self, path: str) -> None: ...

    def keep_interrupted(self, call_id: str, body: str) -> None:
        """Keep a cancelled call's partial result, to be saved with the history."""
        ...


INTERRUPTED_NOTE = (
    "\n\n[Response interrupted by a tool use result. Only one tool may be used at a time and "
    "should be placed at the end of the message.]"
)


@dataclass(frozen=True, slots=True)
class Step:
    content: list[Content]
    mistake: bool = False
    completed: bool = False
    next_mode: Mode | None = None
    handed_over: bool = False  # the task was condensed or handed to a new one: no more calls
    replaced_history: bool = False  # the calls this reply's results answer are gone from history


def history_text(reply: Reply) -> str:
    """The assistant message as kept in history: cut after the first tool when we stopped there."""
    text = reply.text
    if reply.cut_after_tool:
        tool = next(b for b in reply.blocks if isinstance(b, ToolUseBlock))
        start = text.find(f"<{tool.name}>")
        end = text.find(f"</{tool.name}>", start)
        if end != -1:
            text = text[: end + len(tool.name) + 3]
        text += INTERRUPTED_NOTE
    return text or "(empty reply)"


async def run_first_tool(task: TurnHost, reply: Reply) -> Step:
    tool_block = next((b for b in reply.blocks if isinstance(b, ToolUseBlock)), None)
    if tool_block is None:
        if reply.limit_reached:
            told = reply.limit_feedback or responses.output_limit(reply.limit_reached)
            return Step([TextContent(told)], mistake=True)
        return Step([TextContent(responses.no_tool_used(task.tools))], mistake=True)
    call = ToolCall(tool_block.name, dict(tool_block.params))
    call_id = reply.tool_call_id
    tool = task.tools.get(call.name)
    refused = modes.refusal(task.mode, call, task.facts(call.name))
    if tool is None:
        message = refused or responses.unknown_tool(call.name, list(task.tools))
        task.say(ToolFinished(call.name, call.name, False, message, call_id))
        return Step(
            [TextContent(f"[{call.name}] Result:\n{responses.tool_error(call.name, message)}")],
            mistake=True,
        )
    try:
        summary = tool.summary(call)
    except ToolError:
        summary = call.name
    task.say(ToolStarted(call.name, summary, call_id))
    try:
        if refused is not None:
            raise ToolError(refused)
        result = await tool.run(call, task.tool_context(call_id))
    except Interrupted as exc:
        task.say(ToolFinished(call.name, summary, False, exc.result.text, call_id))
        task.keep_interrupted(call_id, f"{responses.tool_header(summary)}\n{exc.result.text}")
        raise asyncio.CancelledError from None
    except ToolError as exc:
        blameless = isinstance(exc, PeerToolError)
        text = responses.tool_error(call.name, str(exc))
        result = ToolResult(text, is_error=True, blameless=blameless)
    except (OSError, ValueError, RecursionError) as exc:
        # Input no check foresaw (a name the file system refuses, …): the model is told, the
        # task goes on.
        message = f"The tool failed on this input: {type(exc).__name__}: {str(exc)[:500]}"
        result = ToolResult(responses.tool_error(call.name, message), is_error=True)
    ok = not (result.is_error or result.denied)
    shown = result.shown or result.images
    images = tuple(f"data:{i.media_type};base64,{i.data_b64}" for i in shown)
    task.say(ToolFinished(call.name, summary, ok, result.text, call_id, images))
    path = call.get("path")
    if path is not None and not (result.is_error or result.denied):
        with contextlib.suppress(ToolError, OSError, ValueError):  # bookkeeping only
            resolved = task.workspace.resolve(path)
            if not resolved.outside and resolved.path.is_file():
                task.note_path(resolved.display)
    body = f"{responses.tool_header(summary)}\n{result.text}"
    if reply.corrections:
        body += "\n\n" + "\n".join(reply.corrections)
    servers = task.tool_context().services.language_servers
    if servers is not None and (late := servers.late.take()):
        body += "\n\n" + late  # a language server's answer that came after its edit's result
    if reply.cut_after_tool:
        body += "\n\n" + responses.ONE_TOOL_PER_MESSAGE
    content: list[Content] = [TextContent(body), *result.images]
    mistake = result.is_error and not result.blameless
    return Step(content, mistake=mistake, completed=result.completed, next_mode=result.next_mode)
