"""`use_subagents`: up to five read-only child tasks researching in parallel.

Each child is a `Task` of its own (its own history, so its own context window) with the parent's
model, its system prompt plus a research brief, and only tools that read: files, listings,
searches, code definitions, web pages. Its calls need no approval (nothing it can do changes
anything); its completion result is its report. The children run inside the parent's tool call,
so cancelling the parent cancels them. Their tokens and cost go to the parent's record and its
spending caps, and each child's progress is shown as it goes. The parent gets one result: the
totals, then each child's report cut to 1,200 characters.
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from pycline.core.approval import AutoApprove
from pycline.errors import ToolError
from pycline.events import (
    ACCEPT,
    DENY,
    STOP,
    Answer,
    ApprovalQuestion,
    CompletionQuestion,
    CompletionResult,
    Event,
    FollowupQuestion,
    Question,
    SubagentProgress,
    ToolStarted,
    Usage,
)
from pycline.prompts import responses
from pycline.storage.records import TaskRecord
from pycline.storage.task_store import TaskFolder
from pycline.tools.base import ToolResult

if TYPE_CHECKING:
    from pycline.core.task import Task
    from pycline.tools.base import Tool

MAX_SUBAGENTS: Final = 5
RESULT_CHARS: Final = 1_200
READ_ONLY_TOOLS: Final = frozenset(
    {
        "read_file",
        "list_files",
        "search_files",
        "list_code_definition_names",
        "web_fetch",
        "attempt_completion",
    }
)
NO_USER: Final = "No one can answer: decide from what you found, and say what you assumed."
RESEARCH_BRIEF: Final = """# Sub-agent
You are a read-only research sub-agent working for another agent. Investigate only what the prompt asks, with the tools you have (they cannot change anything). Then call attempt_completion: its result is your report. Be concrete and brief, and end with "Relevant file paths:" listing the files that matter."""


def prompts_of(params: dict[str, str]) -> list[str]:
    return [
        params[f"prompt_{i}"].strip()
        for i in range(1, MAX_SUBAGENTS + 1)
        if params.get(f"prompt_{i}", "").strip()
    ]


@dataclass(slots=True)
class _Child:
    index: int
    prompt: str
    status: str = "running"
    report: str = ""
    tool_calls: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    cost: float = 0.0
    peak_context: int = 0


class _ChildHost:
    """What a child shows goes to the parent as progress; its questions answer themselves."""

    def __init__(self, parent: Task, child: _Child, total: int) -> None:
        self._parent = parent
        self._child = child
        self._total = total

    def progress(self, latest: str = "") -> None:
        c = self._child
        self._parent.say(
            SubagentProgress(
                c.index, self._total, c.prompt, c.status, latest, c.tokens_in, c.tokens_out, c.cost
            )
        )

    def say(self, event: Event) -> None:
        c = self._child
        match event:
            case ToolStarted(summary=summary):
                c.tool_calls += 1
                self.progress(summary)
            case Usage() as u:
                c.tokens_in += u.input_tokens + u.cache_read_tokens + u.cache_write_tokens
                c.tokens_out += u.output_tokens
                c.cost += u.cost
                c.peak_context = max(c.peak_context, u.context_tokens)
                self._parent.features.charged(
                    self._parent, u.cost, u.input_tokens + u.output_tokens
                )
                self._parent.record.total_cost += u.cost
                self._parent.record.tokens_in += u.input_tokens
                self._parent.record.tokens_out += u.output_tokens
            case CompletionResult(result=result):
                c.report = result
            case _:
                pass

    async def ask(self, question: Question) -> Answer:
        match question:
            case ApprovalQuestion():
                return Answer(DENY.id, "Sub-agents may only read.")
            case CompletionQuestion():
                return Answer(ACCEPT.id)
            case FollowupQuestion():
                return Answer(text=NO_USER)
            case _:
                return Answer(STOP.id)


async def run_subagents(task: Task, params: dict[str, str]) -> ToolResult:
    prompts = prompts_of(params)
    if not prompts:
        raise ToolError("Missing value for required parameter 'prompt_1'.")
    question = ApprovalQuestion(
        "use_subagents", f"run {len(prompts)} read-only sub-agents", preview="\n\n".join(prompts)
    )
    approval = await task.approver(question, "read", outside_workspace=False)
    if not approval.approved:
        return ToolResult(responses.with_feedback(responses.DENIED, approval.feedback), denied=True)
    children = [_Child(i + 1, p) for i, p in enumerate(prompts)]
    await asyncio.gather(*(_run_child(task, c, len(children)) for c in children))
    return ToolResult(_report(children), is_error=all(c.status == "failed" for c in children))


async def _run_child(parent: Task, child: _Child, total: int) -> None:
    from pycline.core.task import Task, TaskSettings

    host = _ChildHost(parent, child, total)
    host.progress()
    path = parent.folder.path / "subagents" / f"{child.index}"
    path.mkdir(parents=True, exist_ok=True)
    folder = TaskFolder(path)
    record = TaskRecord(
        id=f"{parent.id}-sub{child.index}",
        ts=time.time(),
        task=child.prompt,
        workspace=str(parent.workspace.root),
    )
    tools: list[Tool] = [t for t in parent.tools.values() if t.spec.name in READ_ONLY_TOOLS]
    settings = TaskSettings(
        auto_approve=AutoApprove(read_files=True),
        headless=True,
        max_mistakes=3,
        mode="act",
        tool_call_format=parent.settings.tool_call_format,
    )
    sub = Task(
        provider=parent.provider,
        tools=tools,
        host=host,
        folder=folder,
        workspace=parent.workspace,
        system_prompt=f"{parent.system_prompt}\n\n{RESEARCH_BRIEF}\n",
        record=record,
        settings=settings,
        services=dataclasses.replace(parent.services, closers=[]),
    )
    outcome = await sub.start(child.prompt)
    child.status = "completed" if outcome.completed and child.report else "failed"
    if child.status == "failed" and not child.report:
        child.report = outcome.reason
    host.progress()


def _report(children: Sequence[_Child]) -> str:
    ok = sum(1 for c in children if c.status == "completed")
    lines = [
        "Subagent results:",
        f"Total: {len(children)}",
        f"Succeeded: {ok}",
        f"Failed: {len(children) - ok}",
        f"Tool calls: {sum(c.tool_calls for c in children)}",
        f"Peak context usage: {max(c.peak_context for c in children):,} tokens",
    ]
    for c in children:
        report = c.report if len(c.report) <= RESULT_CHARS else c.report[:RESULT_CHARS] + "…"
        lines.append(f"\n[{c.index}] {c.status.upper()} - {c.prompt}\n{report}")
    return "\n".join(lines)
