"""What a task tells its front ends (`Host.say`) and asks them (`Host.ask`).

The core never prints or reads input; front ends render these events and answer these questions.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, Protocol, TypeAlias


@dataclass(frozen=True, slots=True)
class TaskStarted:
    task_id: str
    task: str
    workspace: str
    resumed: bool = False
    kind: Literal["task_started"] = "task_started"


@dataclass(frozen=True, slots=True)
class RequestStarted:
    index: int
    kind: Literal["request_started"] = "request_started"


@dataclass(frozen=True, slots=True)
class TextDelta:
    """New assistant prose (outside tool calls) as it streams."""

    text: str
    kind: Literal["text_delta"] = "text_delta"


@dataclass(frozen=True, slots=True)
class ReasoningDelta:
    text: str
    kind: Literal["reasoning_delta"] = "reasoning_delta"


@dataclass(frozen=True, slots=True)
class TextDone:
    """A block of assistant prose is complete (ends a streamed paragraph)."""

    text: str
    kind: Literal["text_done"] = "text_done"


@dataclass(frozen=True, slots=True)
class ToolStarted:
    """The model asked for a tool; `summary` is one line such as `read_file src/a.py`."""

    tool: str
    summary: str
    kind: Literal["tool_started"] = "tool_started"


@dataclass(frozen=True, slots=True)
class ToolOutput:
    """Live output of a running tool (command output lines)."""

    text: str
    kind: Literal["tool_output"] = "tool_output"


@dataclass(frozen=True, slots=True)
class ToolFinished:
    tool: str
    summary: str
    ok: bool
    result: str
    kind: Literal["tool_finished"] = "tool_finished"


@dataclass(frozen=True, slots=True)
class Usage:
    input_tokens: int
    output_tokens: int
    cache_write_tokens: int
    cache_read_tokens: int
    cost: float
    task_cost: float
    context_tokens: int
    context_window: int
    kind: Literal["usage"] = "usage"


@dataclass(frozen=True, slots=True)
class Notice:
    """Something the user should know that is not an error (retrying, history trimmed...)."""

    text: str
    kind: Literal["notice"] = "notice"


@dataclass(frozen=True, slots=True)
class ErrorEvent:
    text: str
    kind: Literal["error"] = "error"


@dataclass(frozen=True, slots=True)
class CompletionResult:
    result: str
    command: str | None = None
    kind: Literal["completion_result"] = "completion_result"


@dataclass(frozen=True, slots=True)
class ModeChanged:
    mode: str  # "act" | "plan"
    model: str  # provider/model used from now on
    kind: Literal["mode_changed"] = "mode_changed"


@dataclass(frozen=True, slots=True)
class PlanResponse:
    """The model's plan or answer in Plan mode (`plan_mode_respond`)."""

    response: str
    kind: Literal["plan_response"] = "plan_response"


@dataclass(frozen=True, slots=True)
class CheckpointCreated:
    """The workspace was snapshotted; `commit` restores it (`pycline restore`)."""

    commit: str
    label: str
    kind: Literal["checkpoint_created"] = "checkpoint_created"


@dataclass(frozen=True, slots=True)
class TaskEnded:
    task_id: str
    completed: bool
    reason: str
    kind: Literal["task_ended"] = "task_ended"


@dataclass(frozen=True, slots=True)
class TaskProgress:
    """The task's focus-chain checklist (Markdown `- [ ]` / `- [x]` lines) as last updated."""

    checklist: str
    completed: int
    total: int
    current: str  # the first open item ("" when every item is done)
    kind: Literal["task_progress"] = "task_progress"


@dataclass(frozen=True, slots=True)
class BudgetStatus:
    """Spending against one cap ("spent / cap"): scope task, session or day; unit usd or tokens."""

    scope: str
    unit: str
    spent: float
    cap: float
    kind: Literal["budget"] = "budget"


@dataclass(frozen=True, slots=True)
class SubagentProgress:
    """One sub-agent of `use_subagents`: its state, its latest tool, what it has cost so far."""

    index: int
    total: int
    prompt: str
    status: str  # running | completed | failed
    latest_tool: str = ""
    tokens_in: int = 0
    tokens_out: int = 0
    cost: float = 0.0
    kind: Literal["subagent"] = "subagent"


Event: TypeAlias = (
    TaskStarted
    | RequestStarted
    | TextDelta
    | ReasoningDelta
    | TextDone
    | ToolStarted
    | ToolOutput
    | ToolFinished
    | Usage
    | Notice
    | ErrorEvent
    | CompletionResult
    | ModeChanged
    | PlanResponse
    | CheckpointCreated
    | TaskEnded
    | TaskProgress
    | BudgetStatus
    | SubagentProgress
)


# --- questions -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ApprovalQuestion:
    """Ask before a tool changes or runs something.

    `preview` is what will happen: a unified diff for edits, the command line for commands.
    `outside_workspace` marks a path outside the workspace: never auto-approved.
    """

    tool: str
    summary: str
    preview: str = ""
    outside_workspace: bool = False
    content: str | None = (
        None  # a proposed file's full content: front ends may let the user edit it
    )
    path: str = ""  # the file a write targets (for the editor's file type)
    kind: Literal["approval"] = "approval"


@dataclass(frozen=True, slots=True)
class FollowupQuestion:
    question: str
    options: tuple[str, ...] = ()
    kind: Literal["followup"] = "followup"


@dataclass(frozen=True, slots=True)
class CompletionQuestion:
    """After `attempt_completion`: accept, or give feedback to continue."""

    result: str
    kind: Literal["completion"] = "completion"


@dataclass(frozen=True, slots=True)
class PlanQuestion:
    """After `plan_mode_respond`: reply (text), switch to Act mode (yes), or stop here (no)."""

    response: str
    kind: Literal["plan"] = "plan"


@dataclass(frozen=True, slots=True)
class MistakeLimitQuestion:
    """The model erred several times in a row: continue (with optional guidance) or stop."""

    count: int
    kind: Literal["mistake_limit"] = "mistake_limit"


@dataclass(frozen=True, slots=True)
class ErrorRetryQuestion:
    """A request failed after retries: retry or stop."""

    error: str
    kind: Literal["error_retry"] = "error_retry"


@dataclass(frozen=True, slots=True)
class BudgetQuestion:
    """A spending cap was reached: raise it (yes, or a new cap as text) or stop (no)."""

    scope: str
    unit: str
    spent: float
    cap: float
    kind: Literal["budget_limit"] = "budget_limit"


Question: TypeAlias = (
    ApprovalQuestion
    | FollowupQuestion
    | CompletionQuestion
    | PlanQuestion
    | MistakeLimitQuestion
    | ErrorRetryQuestion
    | BudgetQuestion
)


@dataclass(frozen=True, slots=True)
class Answer:
    """`yes`/`no` buttons, or a typed reply. `text` may accompany either (feedback)."""

    response: Literal["yes", "no", "text"]
    text: str = ""
    edited_content: str | None = None  # the user's own version of a proposed file write
    images: tuple[str, ...] = field(default=())

    @property
    def approved(self) -> bool:
        return self.response == "yes"


class Host(Protocol):
    """A front end, as the core sees it."""

    def say(self, event: Event) -> None: ...

    async def ask(self, question: Question) -> Answer: ...
