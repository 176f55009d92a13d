"""The `Tool` protocol, the context a tool runs in, and what it returns."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, Protocol, TypeAlias

from pycline.errors import ToolError
from pycline.events import Answer, ApprovalQuestion, Event, Question
from pycline.messages import ImageContent, Message
from pycline.tools.services import ToolServices
from pycline.workspace.access import AccessRules as AccessRules
from pycline.workspace.access import AllowAll as AllowAll
from pycline.workspace.paths import ResolvedPath, Workspace


@dataclass(frozen=True, slots=True)
class ParamSpec:
    name: str
    description: str
    required: bool = True


# What a call of the tool does, as front ends and policies see it.
ToolEffect: TypeAlias = Literal[
    "read",  # reads files, listings, pages, skills: changes nothing
    "edit",  # changes files (refused in Plan mode)
    "execute",  # runs a command
    "browser",  # drives the browser
    "mcp",  # calls an MCP server
    "interaction",  # asks the user or presents the result: the call is the message itself
    "plan",  # Plan mode's answer to the user
    "handoff",  # acts on the task itself: condense it, or hand it to a new task
    "delegate",  # runs read-only sub-agents
    "other",
]
# The kinds an editor draws tool calls with (the Agent Client Protocol's `ToolKind`).
ToolKind: TypeAlias = Literal[
    "read", "edit", "delete", "move", "search", "execute", "think", "fetch", "switch_mode", "other"
]


@dataclass(frozen=True, slots=True)
class ToolFacts:
    """What front ends and policies know about a tool: one place, not a name list per module.

    `title`/`done_title` are Cline's wording for the call before and after it ran ("Cline wants
    to edit this file:", "Cline edited this file:"); `label` names one call for an editor,
    `{param}` filled from the call ("Edit {path}"). `checkpointed`: a checkpoint follows the call
    (it may change the workspace, or it completes the task). `read_only`: the call changes
    nothing, so a read-only sub-agent may make it.
    """

    effect: ToolEffect = "other"
    title: str = ""
    done_title: str = ""
    label: str = ""
    kind: ToolKind = "other"
    checkpointed: bool = False
    read_only: bool = False

    @property
    def conversational(self) -> bool:
        """The call is the conversation itself (a question, the result, a plan): front ends show
        it as a message, not as a tool call."""
        return self.effect in ("interaction", "plan")


@dataclass(frozen=True, slots=True)
class ToolSpec:
    name: str
    description: str
    params: tuple[ParamSpec, ...]
    example: str = ""
    facts: ToolFacts = field(default_factory=ToolFacts)


@dataclass(frozen=True, slots=True)
class ToolCall:
    name: str
    params: Mapping[str, str]

    def get(self, name: str) -> str | None:
        value = self.params.get(name)
        return value if value is not None and value != "" else None

    def require(self, name: str) -> str:
        value = self.params.get(name)
        if value is None or value.strip() == "":
            raise MissingParameter(self.name, name)
        return value


class MissingParameter(ToolError):
    def __init__(self, tool: str, param: str) -> None:
        super().__init__(
            f"Missing value for required parameter '{param}'. Please retry with complete response."
        )
        self.tool = tool
        self.param = param


# The auto-approval categories of SPEC §7.
ApprovalCategory: TypeAlias = Literal[
    "read", "edit", "safe_command", "command", "dangerous_command", "browser", "mcp"
]


@dataclass(frozen=True, slots=True)
class ToolResult:
    """What goes back to the model.

    `is_error` counts towards the consecutive-mistake limit unless `blameless` (the program
    behind the tool failed, not the model's call). `completed` ends the task
    (`attempt_completion` accepted by the user). `denied` means the user said no.
    """

    text: str
    images: tuple[ImageContent, ...] = ()
    is_error: bool = False
    completed: bool = False
    denied: bool = False
    next_mode: Literal["act", "plan"] | None = None  # the user switched mode (Plan → Act)
    # What the user is shown even when the model cannot take images (the browser's screenshot).
    shown: tuple[ImageContent, ...] = ()
    blameless: bool = False


class Interrupted(asyncio.CancelledError):
    """Cancellation that carries what the tool had done by then (a command's output so far).

    The task keeps `result` as the call's result, so the model sees it when the task goes on;
    the task re-raises a plain `CancelledError`, so cancellation stays what asyncio expects.
    """

    def __init__(self, result: ToolResult) -> None:
        super().__init__("interrupted")
        self.result = result


@dataclass(frozen=True, slots=True)
class Approval:
    approved: bool
    feedback: str = ""
    edited_content: str | None = None
    always: bool = False  # the user chose "always allow" (offered only where a rule fits)


class Approver(Protocol):
    async def __call__(
        self, question: ApprovalQuestion, category: ApprovalCategory, *, outside_workspace: bool
    ) -> Approval: ...


@dataclass(slots=True)
class ToolContext:
    """Everything a tool may use. Built by the task for each call."""

    workspace: Workspace
    approve: Approver
    say_fn: SayFn
    ask_fn: AskFn
    supports_images: bool = False
    model_family: str = ""  # "claude" models get edit content verbatim; others are un-escaped
    command_timeout: float = 600.0
    headless: bool = False
    access: AccessRules = field(default_factory=AllowAll)
    services: ToolServices = field(default_factory=ToolServices)
    # Auto mode: commands run unasked inside the sandbox with the network off (tools.command).
    auto_sandboxed: bool = False
    # A completion by the task's own model, charged to the task (an MCP server's sampling):
    # (its text, the model's id), or why there is none. None: the task gives none.
    complete: CompleteFn | None = None

    @property
    def cwd(self) -> Path:
        return self.workspace.root

    def resolve(self, path: str) -> ResolvedPath:
        return self.workspace.resolve(path)

    def say(self, event: Event) -> None:
        self.say_fn(event)

    async def ask(self, question: Question) -> Answer:
        return await self.ask_fn(question)


class CompleteFn(Protocol):
    async def __call__(
        self, system: str, messages: Sequence[Message], /
    ) -> tuple[str, str] | str: ...


class SayFn(Protocol):
    def __call__(self, event: Event, /) -> None: ...


class AskFn(Protocol):
    async def __call__(self, question: Question, /) -> Answer: ...


class Tool(Protocol):
    @property
    def spec(self) -> ToolSpec: ...

    def summary(self, call: ToolCall) -> str:
        """One line naming the action, e.g. `read_file src/a.py`, for the UI and the result header."""
        ...

    async def run(self, call: ToolCall, ctx: ToolContext) -> ToolResult: ...


def describe(tool: str, arg: str | None = None, *, limit: int = 80) -> str:
    """Cline's result-header wording: `read_file for 'src/a.py'`, or just the tool name."""
    if arg is None:
        return tool
    one_line = " ".join(arg.split())
    if len(one_line) > limit:
        one_line = one_line[: limit - 1] + "…"
    return f"{tool} for '{one_line}'"
