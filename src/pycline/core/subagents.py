"""Sub-agents: read-only child tasks researching for the task that started them.

`use_subagents` runs up to five in parallel; a custom agent (`use_subagent_<name>`) runs one with
its own instructions. Each child is a `Task` of its own (its own history, so its own context
window) with only tools that read: files, listings, searches, code definitions, web pages. Its
calls need no approval (nothing it can do changes anything); its completion result is its report.

Children are started through a `SubagentSpawner` (the app's: a session runs each behind a task
handle of its own, which front ends may follow). They run inside the parent's tool call:
cancelling the parent cancels them. Their tokens and cost go to the parent's record and its
spending caps, each child's progress is shown in the parent's event stream, and the parent gets
one result: the totals, then each child's report cut to 1,200 characters.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final, Protocol

from pycline.core.approval import AutoApprove
from pycline.core.capability import Capability, RunContext
from pycline.core.options import TaskOutcome, TaskSettings
from pycline.core.services import TaskServices
from pycline.core.tool_format import ToolCallFormat
from pycline.core.turn import Step
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
    Question,
    SubagentProgress,
    ToolFinished,
    ToolStarted,
    Usage,
)
from pycline.messages import TextContent
from pycline.prompts import responses
from pycline.providers.base import Provider
from pycline.tools.base import Tool, ToolCall, ToolResult, ToolSpec
from pycline.tools.handoff import CustomAgentTool
from pycline.tools.skills import UseSkillTool
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


def prompts_of(params: Mapping[str, str]) -> list[str]:
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

    def __init__(self, parent: RunContext, child: _Child, total: int, agent: str) -> None:
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
                self._parent.charge(u.cost, u.input_tokens, u.output_tokens)
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


class Subagents(Capability):
    """Runs the sub-agent tools (their facts' effect is "delegate") through `spawner`; the
    children share the parent's `services` and tool-call format."""

    runs = "delegate"

    def __init__(
        self,
        spawner: SubagentSpawner,
        *,
        services: TaskServices | None = None,
        tool_call_format: ToolCallFormat = "auto",
    ) -> None:
        self.spawner = spawner
        self.services = services or TaskServices()
        self.tool_call_format: ToolCallFormat = tool_call_format

    async def run_tool(self, ctx: RunContext, call: ToolCall, call_id: str) -> Step:
        summary = call.name
        ctx.say(ToolStarted(summary, summary, call_id))
        tool = ctx.tools.get(call.name)
        if isinstance(tool, CustomAgentTool):
            assignment = agent_assignment(tool.agent, call.params.get("prompt", ""))
        else:
            assignment = Assignment(tuple(prompts_of(call.params)))
        try:
            result = await self._run(ctx, assignment)
        except ToolError as exc:
            result = ToolResult(responses.tool_error(summary, str(exc)), is_error=True)
        ok = not (result.is_error or result.denied)
        ctx.say(ToolFinished(summary, summary, ok, result.text, call_id))
        body = f"{responses.tool_header(summary)}\n{result.text}"
        return Step([TextContent(body)], mistake=result.is_error)

    async def _run(self, ctx: RunContext, assignment: Assignment) -> ToolResult:
        prompts = assignment.prompts
        if not prompts:
            missing = "prompt" if assignment.agent else "prompt_1"
            raise ToolError(f"Missing value for required parameter '{missing}'.")
        who = f"the {assignment.agent} agent" if assignment.agent else f"{len(prompts)} sub-agents"
        question = ApprovalQuestion("use_subagents", f"run {who} (read-only)", "\n\n".join(prompts))
        approval = await ctx.approve(question, "read", outside_workspace=False)
        if not approval.approved:
            text = responses.with_feedback(responses.DENIED, approval.feedback)
            return ToolResult(text, denied=True)
        folder = ctx.folder / "subagents"
        earlier = sum(1 for _ in folder.iterdir()) if folder.is_dir() else 0  # an earlier call's
        children = [
            _Child(i + 1, p, f"{ctx.task_id}-sub{earlier + i + 1}") for i, p in enumerate(prompts)
        ]
        relays = [_Relay(ctx, c, len(children), assignment.agent) for c in children]
        runs: list[SubagentRun] = []
        try:
            for child, relay in zip(children, relays, strict=True):
                relay.progress()
                runs.append(self.spawner.spawn(self._spec(ctx, assignment, child, relay)))
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
        failed = all(c.status == "failed" for c in children)
        return ToolResult(_report(children), is_error=failed)

    def _spec(
        self, ctx: RunContext, assignment: Assignment, child: _Child, relay: _Relay
    ) -> SubagentSpec:
        wanted = assignment.tools

        def allowed(spec: ToolSpec) -> bool:
            if spec.name == "attempt_completion":
                return True  # the report: always needed
            return spec.facts.read_only and (wanted is None or spec.name in wanted)

        skills = assignment.skills
        tools = tuple(
            t.limited_to(skills) if isinstance(t, UseSkillTool) and skills else t
            for t in ctx.tools.values()
            if allowed(t.spec)
        )
        settings = TaskSettings(
            auto_approve=AutoApprove(read_files=True),
            headless=True,
            max_mistakes=3,
            mode="act",
            tool_call_format=self.tool_call_format,
        )
        return SubagentSpec(
            task_id=child.task_id,
            folder=ctx.folder / "subagents" / child.task_id,  # its name is the task's id
            prompt=child.prompt,
            brief=assignment.instructions or RESEARCH_BRIEF,
            provider=ctx.provider,
            tools=tools,
            workspace=ctx.workspace,
            settings=settings,
            services=TaskServices(self.services.access, self.services.tools),
            observe=relay.observe,
            answer=relay.answer,
            model_id=assignment.model_id,
        )


async def _stop(runs: Sequence[SubagentRun]) -> None:
    for run in runs:
        run.cancel()
    await asyncio.gather(*(r.wait() for r in runs), return_exceptions=True)


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
