"""Sub-agents: read-only child tasks researching for the task that started them.

`use_subagents` runs up to five in parallel; a custom agent (`use_subagent_<name>`) runs one with
its own instructions. Each child is a `Task` of its own (its own history, so its own context
window) with only tools that read: files, listings, searches, code definitions, web pages. Its
calls need no approval (nothing it can do changes anything); its completion result is its report.

Children are started through a `SubagentSpawner`: the session layer's runs each behind a task
handle of its own (front ends may follow it); without one, `InlineSpawner` runs them here. Either
way the children run inside the parent's tool call: cancelling the parent cancels them. Their
tokens and cost go to the parent's record and its spending caps, each child's progress is shown
in the parent's event stream, and the parent gets one result: the totals, then each child's
report cut to 1,200 characters.
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Final, Protocol

from pycline.core.approval import AutoApprove
from pycline.errors import PyclineError, ToolError
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
    Host,
    Question,
    SubagentProgress,
    ToolStarted,
    Usage,
)
from pycline.prompts import responses
from pycline.storage.records import TaskRecord
from pycline.storage.task_store import TaskFolder
from pycline.tools.base import ToolResult, ToolSpec
from pycline.tools.skills import UseSkillTool

if TYPE_CHECKING:
    from pycline.core.services import TaskServices
    from pycline.core.task import Task, TaskOutcome, TaskSettings
    from pycline.providers.base import Provider
    from pycline.tools.base import Tool
    from pycline.workspace.agents import CustomAgent
    from pycline.workspace.paths import Workspace

MAX_SUBAGENTS: Final = 5
RESULT_CHARS: Final = 1_200
NO_USER: Final = "No one can answer: decide from what you found, and say what you assumed."
REPORT_NOTE: Final = (
    "You work for another agent and can only read: nothing you do changes anything. When done, "
    "call attempt_completion; its result is your report to that agent."
)
RESEARCH_BRIEF: Final = """# Sub-agent
You are a read-only research sub-agent working for another agent. Investigate only what the prompt asks, with the tools you have (they cannot change anything). Then call attempt_completion: its result is your report. Be concrete and brief, and end with "Relevant file paths:" listing the files that matter."""


@dataclass(frozen=True, slots=True)
class SubagentSpec:
    """One child task, fully described: what a spawner needs to build and start it.

    `model_id` asks for another model of the parent's provider (a custom agent's `modelId`);
    None runs on `provider`. `observe` receives every event the child says; `answer` answers
    its questions at once (no one is asked).
    """

    task_id: str
    folder: Path
    prompt: str
    brief: str  # follows the system prompt: the research brief or the agent's instructions
    parent_prompt: str  # the parent's system prompt, for a spawner that cannot write one
    provider: Provider
    tools: tuple[Tool, ...]
    workspace: Workspace
    settings: TaskSettings
    services: TaskServices
    observe: Callable[[Event], None]
    answer: Callable[[Question], Answer]
    model_id: str | None = None


class SubagentRun(Protocol):
    """A started child (a `TaskHandle` in the session layer)."""

    async def wait(self) -> TaskOutcome: ...

    def cancel(self) -> None: ...


class SubagentSpawner(Protocol):
    def spawn(self, spec: SubagentSpec) -> SubagentRun: ...


@dataclass(frozen=True, slots=True)
class Assignment:
    """What to run: the prompts, and for a custom agent its name, instructions, tools, model."""

    prompts: tuple[str, ...]
    agent: str = ""
    instructions: str = ""  # replaces the research brief
    tools: frozenset[str] | None = None  # further limits the read-only tools (None: all of them)
    model_id: str | None = None
    skills: tuple[str, ...] = ()  # the only skills use_skill may load (none listed: any)


def agent_assignment(agent: CustomAgent, prompt: str) -> Assignment:
    """A custom agent's run: its instructions instead of the research brief, its tools (read-only
    ones only, whatever it lists), its model; the skills it names are offered through use_skill."""
    instructions = f"# Agent: {agent.name}\n{agent.instructions or RESEARCH_BRIEF}"
    instructions += "\n\n" + REPORT_NOTE
    tools = agent.tools
    if agent.skills:
        names = ", ".join(f'"{s}"' for s in agent.skills)
        instructions += f"\n\nSkills you may load with use_skill: {names}."
        tools = tools | {"use_skill"} if tools is not None else None
    prompts = (prompt.strip(),) if prompt.strip() else ()
    return Assignment(prompts, agent.name, instructions, tools, agent.model_id, agent.skills)


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
    task_id: str
    status: str = "running"
    report: str = ""
    tool_calls: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    cost: float = 0.0
    peak_context: int = 0


class _Relay:
    """A child's events become the parent's progress events and charges; its questions
    answer themselves."""

    def __init__(self, parent: Task, child: _Child, total: int, agent: str) -> None:
        self._parent = parent
        self._child = child
        self._total = total
        self._agent = agent

    def progress(self, latest: str = "") -> None:
        c = self._child
        self._parent.say(
            SubagentProgress(
                index=c.index,
                total=self._total,
                prompt=c.prompt,
                status=c.status,
                latest_tool=latest,
                tokens_in=c.tokens_in,
                tokens_out=c.tokens_out,
                cost=c.cost,
                child_task_id=c.task_id,
                agent=self._agent,
                tool_calls=c.tool_calls,
            )
        )

    def observe(self, event: Event) -> None:
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
                parent = self._parent
                parent.features.charged(parent, u.cost, u.input_tokens + u.output_tokens)
                parent.record.total_cost += u.cost
                parent.record.tokens_in += u.input_tokens
                parent.record.tokens_out += u.output_tokens
                self.progress()
            case CompletionResult(result=result):
                c.report = result
            case _:
                pass

    @staticmethod
    def answer(question: Question) -> Answer:
        match question:
            case ApprovalQuestion():
                return Answer(DENY.id, "Sub-agents may only read.")
            case CompletionQuestion():
                return Answer(ACCEPT.id)
            case FollowupQuestion():
                return Answer(text=NO_USER)
            case _:
                return Answer(STOP.id)


async def run_subagents(task: Task, assignment: Assignment) -> ToolResult:
    prompts = assignment.prompts
    if not prompts:
        missing = "prompt" if assignment.agent else "prompt_1"
        raise ToolError(f"Missing value for required parameter '{missing}'.")
    who = f"the {assignment.agent} agent" if assignment.agent else f"{len(prompts)} sub-agents"
    question = ApprovalQuestion("use_subagents", f"run {who} (read-only)", "\n\n".join(prompts))
    approval = await task.approver(question, "read", outside_workspace=False)
    if not approval.approved:
        return ToolResult(responses.with_feedback(responses.DENIED, approval.feedback), denied=True)
    folder = task.folder.path / "subagents"
    earlier = sum(1 for _ in folder.iterdir()) if folder.is_dir() else 0  # an earlier call's
    children = [_Child(i + 1, p, f"{task.id}-sub{earlier + i + 1}") for i, p in enumerate(prompts)]
    spawner = task.features.spawner or InlineSpawner()
    relays = [_Relay(task, c, len(children), assignment.agent) for c in children]
    runs: list[SubagentRun] = []
    try:
        for child, relay in zip(children, relays, strict=True):
            relay.progress()
            runs.append(spawner.spawn(_spec(task, assignment, child, relay)))
        outcomes = await asyncio.gather(*(r.wait() for r in runs))
    except PyclineError as exc:  # a child could not be built (its model, say)
        await _stop(runs)
        raise ToolError(f"The sub-agent could not start: {exc}") from exc
    except BaseException:  # cancelled with the parent: the children go too
        await _stop(runs)
        raise
    for child, relay, outcome in zip(children, relays, outcomes, strict=True):
        child.status = "completed" if outcome.completed and child.report else "failed"
        if child.status == "failed" and not child.report:
            child.report = outcome.reason
        relay.progress()
    return ToolResult(_report(children), is_error=all(c.status == "failed" for c in children))


async def _stop(runs: Sequence[SubagentRun]) -> None:
    for run in runs:
        run.cancel()
    await asyncio.gather(*(r.wait() for r in runs), return_exceptions=True)


def _spec(parent: Task, assignment: Assignment, child: _Child, relay: _Relay) -> SubagentSpec:
    from pycline.core.task import TaskSettings

    wanted = assignment.tools

    def allowed(spec: ToolSpec) -> bool:
        if spec.name == "attempt_completion":
            return True  # the report: always needed
        return spec.facts.read_only and (wanted is None or spec.name in wanted)

    tools = tuple(
        t.limited_to(assignment.skills) if isinstance(t, UseSkillTool) and assignment.skills else t
        for t in parent.tools.values()
        if allowed(t.spec)
    )
    brief = assignment.instructions or RESEARCH_BRIEF
    settings = TaskSettings(
        auto_approve=AutoApprove(read_files=True),
        headless=True,
        max_mistakes=3,
        mode="act",
        tool_call_format=parent.settings.tool_call_format,
    )
    return SubagentSpec(
        task_id=child.task_id,
        folder=parent.folder.path / "subagents" / child.task_id,  # its name is the task's id
        prompt=child.prompt,
        brief=brief,
        parent_prompt=parent.system_prompt,
        provider=parent.provider,
        tools=tools,
        workspace=parent.workspace,
        settings=settings,
        services=dataclasses.replace(parent.services, closers=[]),
        observe=relay.observe,
        answer=relay.answer,
        model_id=assignment.model_id,
    )


def child_task(
    spec: SubagentSpec, host: Host, provider: Provider, system: str, native_system: str = ""
) -> Task:
    """The child `Task` a spec describes, speaking to `host`; `system` (and `native_system`,
    for native tool calls) is the system prompt for its tools, the brief added here."""
    from pycline.core.modes import ModeProfile
    from pycline.core.task import Task

    spec.folder.mkdir(parents=True, exist_ok=True)
    folder = TaskFolder(spec.folder)
    record = TaskRecord(
        id=spec.task_id,
        ts=time.time(),
        task=spec.prompt,
        workspace=str(spec.workspace.root),
        provider=provider.name,
        model=provider.model.id,
    )
    return Task(
        provider=provider,
        tools=spec.tools,
        host=host,
        folder=folder,
        workspace=spec.workspace,
        system_prompt=f"{system}\n\n{spec.brief}\n",
        record=record,
        settings=spec.settings,
        services=spec.services,
        profiles={
            "act": ModeProfile(
                provider,
                spec.tools,
                f"{system}\n\n{spec.brief}\n",
                f"{native_system}\n\n{spec.brief}\n" if native_system else "",
            )
        },
    )


class _SpecHost:
    """A child's host when no session runs it: events to `observe`, questions to `answer`."""

    def __init__(self, spec: SubagentSpec) -> None:
        self._spec = spec

    def say(self, event: Event) -> None:
        self._spec.observe(event)

    async def ask(self, question: Question) -> Answer:
        return self._spec.answer(question)


class _InlineRun:
    def __init__(self, work: asyncio.Task[TaskOutcome]) -> None:
        self._work = work

    async def wait(self) -> TaskOutcome:
        from pycline.core.task import TaskOutcome

        try:
            return await asyncio.shield(self._work)
        except asyncio.CancelledError:
            if self._work.cancelled():
                return TaskOutcome(False, "The task was cancelled.")
            raise

    def cancel(self) -> None:
        self._work.cancel()


class InlineSpawner:
    """Children run here, for tasks built without a session: on the parent's model (`model_id`
    needs the session's configuration and is ignored) and the parent's system prompt."""

    def spawn(self, spec: SubagentSpec) -> SubagentRun:
        task = child_task(spec, _SpecHost(spec), spec.provider, spec.parent_prompt)
        return _InlineRun(asyncio.create_task(task.start(spec.prompt)))


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
