"""What a task tells its front ends (`Host.say`) and asks them (`Host.ask`), version 3.

The core never prints or reads input; front ends render these events and answer these questions.
Subscribers receive every event wrapped in an `Envelope` (task id, sequence number, time). Tool
events share a `tool_call_id` from the first streamed token (`ToolPartial`) to the result; a
question reaches subscribers as `QuestionAsked` with a `question_id`, its answer as
`QuestionAnswered`. An `Answer` names the `Option` chosen by id, so "approve", "accept" and "switch
to Act" are distinct words rather than one overloaded "yes".

Version 3 changed one thing: `ToolPartial` carries what a call's parameters gained since its
previous `ToolPartial`, not all of them again (a streamed 1 MB file had cost its size once per
chunk). A version-2 reader would show fragments, hence the new number.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal, Protocol, TypeAlias

EVENTS_VERSION = 3


@dataclass(frozen=True, slots=True)
class TaskStarted:
    """A run of the task begins: the task's first, or a resumed one (`message`: what the user
    typed to go on with, if anything)."""

    task_id: str
    task: str
    workspace: str
    resumed: bool = False
    message: str = ""
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
class ToolPartial:
    """A tool call still streaming in, as what its parameters gained since the previous
    `ToolPartial` of the same call (a UI can show an edit being written).

    `params` maps each parameter that changed to the text appended to it; a parameter named in
    `replaced` starts over with the text given (its value changed other than by growing, as
    when a `write_to_file`'s content is re-cut at its closing tag). A consumer keeps each call's
    parameters, starting from none, and applies the partials in order (`merge_partial`): after
    the last one before `ToolStarted` it holds them all. So a streamed 1 MB file costs about
    1 MB, however finely it streams.
    """

    tool_call_id: str
    tool: str
    params: Mapping[str, str]
    replaced: tuple[str, ...] = ()
    kind: Literal["tool_partial"] = "tool_partial"


def merge_partial(params: Mapping[str, str], partial: ToolPartial) -> dict[str, str]:
    """A call's parameters `params` with `partial` applied."""
    out = dict(params)
    for name, text in partial.params.items():
        out[name] = text if name in partial.replaced else out.get(name, "") + text
    return out


@dataclass(frozen=True, slots=True)
class ToolStarted:
    """The model asked for a tool; `summary` is one line such as `read_file src/a.py`."""

    tool: str
    summary: str
    tool_call_id: str = ""
    kind: Literal["tool_started"] = "tool_started"


@dataclass(frozen=True, slots=True)
class ToolOutput:
    """Live output of a running tool (command output lines)."""

    text: str
    tool_call_id: str = ""  # stamped by the task with the running call's id
    kind: Literal["tool_output"] = "tool_output"


@dataclass(frozen=True, slots=True)
class ToolFinished:
    tool: str
    summary: str
    ok: bool
    result: str
    tool_call_id: str = ""
    # Images the result shows the model, as data URLs (the browser's screenshot after an action).
    images: tuple[str, ...] = ()
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
    """The workspace was snapshotted; `commit` restores it (`pycline restore`).

    A checkpoint is taken while the next request streams, so this event may arrive after later
    events: it names the tool call whose turn it follows (`tool_call_id`; "" for the snapshot at
    the start of a run), and front ends place it by that id, never by arrival order.
    """

    commit: str
    label: str
    tool_call_id: str = ""
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
    """One sub-agent (`use_subagents`, a custom agent): its state, its latest tool, what it has
    cost so far. Said by the parent task when the child starts, uses a tool, is charged for a
    request and ends; `child_task_id` is the child's own task (a session keeps its handle)."""

    index: int
    total: int
    prompt: str
    status: str  # running | completed | failed
    latest_tool: str = ""
    tokens_in: int = 0
    tokens_out: int = 0
    cost: float = 0.0
    child_task_id: str = ""
    agent: str = ""  # the custom agent's name; "" for use_subagents
    tool_calls: int = 0
    kind: Literal["subagent"] = "subagent"


@dataclass(frozen=True, slots=True)
class QueuedMessage:
    """A message the user sent while the task worked: it waits for the task's next turn."""

    message_id: str
    text: str
    images: tuple[str, ...] = field(default=())  # data URLs


@dataclass(frozen=True, slots=True)
class MessagesQueued:
    """The user's messages waiting for the next turn, as they are now: said when one is queued,
    edited or withdrawn, and when they are delivered (`delivered`, in the order sent) to the
    model's next request or as the answer to the question the task asks next."""

    pending: tuple[QueuedMessage, ...]
    delivered: tuple[QueuedMessage, ...] = ()
    kind: Literal["queued_messages"] = "queued_messages"


# --- questions -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Option:
    """One choice a question offers; an `Answer` names it by `id`."""

    id: str
    label: str


APPROVE = Option("approve", "Approve")
DENY = Option("deny", "Deny")
# Approve, and approve the same command (program and subcommand) in this workspace from now on.
ALWAYS_ALLOW = Option("always", "Always allow")
ACCEPT = Option("accept", "Accept")
SWITCH_TO_ACT = Option("act", "Switch to Act mode")
STOP = Option("stop", "Stop here")
CONTINUE = Option("continue", "Continue")
RETRY = Option("retry", "Retry")


@dataclass(frozen=True, slots=True)
class ApprovalQuestion:
    """Ask before a tool changes or runs something: approve or deny (feedback text optional).

    `preview` is what will happen: a unified diff for edits, the command line for commands.
    `outside_workspace` marks a path outside the workspace: never auto-approved. `content` is a
    proposed file's full content: front ends may let the user edit it (`Answer.edited_content`).
    """

    tool: str
    summary: str
    preview: str = ""
    outside_workspace: bool = False
    content: str | None = None
    path: str = ""  # the file a write targets (for the editor's file type)
    tool_call_id: str = ""  # stamped by the task with the call that asks
    options: tuple[Option, ...] = (APPROVE, DENY)
    kind: Literal["approval"] = "approval"


@dataclass(frozen=True, slots=True)
class FollowupQuestion:
    """The model's question; the user picks a suggested option or types a reply."""

    question: str
    options: tuple[Option, ...] = ()
    kind: Literal["followup"] = "followup"

    @classmethod
    def suggesting(cls, question: str, labels: tuple[str, ...]) -> FollowupQuestion:
        return cls(question, tuple(Option(str(i), label) for i, label in enumerate(labels, 1)))


@dataclass(frozen=True, slots=True)
class CompletionQuestion:
    """After `attempt_completion`: accept, or reply with feedback to continue."""

    result: str
    options: tuple[Option, ...] = (ACCEPT,)
    kind: Literal["completion"] = "completion"


@dataclass(frozen=True, slots=True)
class PlanQuestion:
    """After `plan_mode_respond`: reply (text), switch to Act mode, or stop here."""

    response: str
    options: tuple[Option, ...] = (SWITCH_TO_ACT, STOP)
    kind: Literal["plan"] = "plan"


@dataclass(frozen=True, slots=True)
class MistakeLimitQuestion:
    """The model erred several times in a row: continue (with optional guidance) or stop."""

    count: int
    options: tuple[Option, ...] = (CONTINUE, STOP)
    kind: Literal["mistake_limit"] = "mistake_limit"


@dataclass(frozen=True, slots=True)
class ErrorRetryQuestion:
    """A request failed after retries: retry or stop."""

    error: str
    options: tuple[Option, ...] = (RETRY, STOP)
    kind: Literal["error_retry"] = "error_retry"


RAISE_CAP = Option("raise", "Raise the cap")


@dataclass(frozen=True, slots=True)
class BudgetQuestion:
    """A spending cap was reached: raise it (by its size, or to the number typed) or stop."""

    scope: str
    unit: str
    spent: float
    cap: float
    options: tuple[Option, ...] = (RAISE_CAP, STOP)
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
    """The option chosen (its id; "" for a typed reply alone), plus optional feedback.

    `images` are data URLs sent along with the feedback text; `edited_content` is the user's own
    version of a proposed file write.
    """

    option: str = ""
    text: str = ""
    images: tuple[str, ...] = field(default=())
    edited_content: str | None = None

    def chose(self, option: Option) -> bool:
        return self.option == option.id


@dataclass(frozen=True, slots=True)
class QuestionAsked:
    """The task waits for an answer to `question` (`TaskHandle.answer(question_id, …)`)."""

    question_id: str
    question: Question
    kind: Literal["question_asked"] = "question_asked"


@dataclass(frozen=True, slots=True)
class QuestionAnswered:
    question_id: str
    answer: Answer
    # Where it was answered ("the web UI", "the terminal", "the editor", "pycline attach"; ""
    # when not known): a front end whose prompt is withdrawn says so.
    by: str = ""
    kind: Literal["question_answered"] = "question_answered"


Event: TypeAlias = (
    TaskStarted
    | RequestStarted
    | TextDelta
    | ReasoningDelta
    | TextDone
    | ToolPartial
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
    | QuestionAsked
    | QuestionAnswered
    | TaskProgress
    | BudgetStatus
    | SubagentProgress
    | MessagesQueued
)


@dataclass(frozen=True, slots=True)
class Envelope:
    """An event as subscribers receive it: which task, its place in the task's stream, when."""

    task_id: str
    seq: int
    ts: float
    event: Event


class Host(Protocol):
    """A front end, as the core sees it (a `TaskHandle` in the app layer)."""

    def say(self, event: Event) -> None: ...

    async def ask(self, question: Question) -> Answer: ...
