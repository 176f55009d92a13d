"""What a front end tells a running task (`TaskHandle.send`), version 1: the other half of events.

Events flow out of a task; commands flow in. Every front end (the terminal, the web page, an
editor over ACP, a background task's control socket) says the same things with the same types,
and `pycline.command_wire` is their one JSON form. A command the task cannot carry out (no such
question, an option the question does not offer, no process with that number) is refused with a
clear reason; it never stops the task.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, TypeAlias

from pycline.events import Answer

if TYPE_CHECKING:
    from pycline.tools.base import ApprovalCategory

COMMANDS_VERSION = 1


@dataclass(frozen=True, slots=True)
class AutoApprove:
    """Cline's auto-approval actions; the settings key of each field is its camelCase name.

    Defaults: reads inside the workspace and safe commands run without asking; an MCP tool asks,
    as in Cline, unless the user allowed that tool (a server's `autoApprove`, the settings'
    `mcpAutoApprove`, "Always allow" when asked: the MCP tool checks those lists before asking)
    or turned `use_mcp` on for every tool. `requires_approval=false` commands are
    "safe_command"; others need `execute_all_commands`.
    """

    read_files: bool = True
    read_files_externally: bool = False
    edit_files: bool = False
    edit_files_externally: bool = False
    execute_safe_commands: bool = True
    execute_all_commands: bool = False
    use_browser: bool = False
    use_mcp: bool = False
    yolo: bool = False
    # Auto mode ("auto (sandboxed)"): reads and edits inside the workspace run unasked, and so
    # does every command the sandbox can hold offline (tools.command decides that); the network,
    # paths outside, MCP tools and the browser beyond loopback still ask.
    auto_sandboxed: bool = False

    def allows(self, category: ApprovalCategory, *, outside_workspace: bool) -> bool:
        if self.yolo:
            return True
        inside_auto = self.auto_sandboxed and not outside_workspace
        match category:
            case "read":
                reads = self.read_files or inside_auto
                return reads and (not outside_workspace or self.read_files_externally)
            case "edit":
                edits = self.edit_files or inside_auto
                return edits and (not outside_workspace or self.edit_files_externally)
            case "safe_command":
                # "Safe" is the model's word; one that writes outside the workspace is not.
                safe = self.execute_safe_commands and not outside_workspace
                return safe or self.execute_all_commands
            case "command":
                return self.execute_all_commands
            case "dangerous_command":
                return False  # only yolo, above: the user asked for no questions at all
            case "browser":
                return self.use_browser
            case "mcp":
                return self.use_mcp


@dataclass(frozen=True, slots=True)
class UserMessage:
    """The user's next message: the reply to the question the task waits on (a follow-up, the
    result, a plan, a run of mistakes), or feedback that refuses a proposed action.

    Sent while the task works (no question open), it is queued (a `queued_messages` event) and
    delivered at the next turn boundary: after the running tool, before the next model request.
    With `interrupt`, the running step (the model's reply, a tool) is stopped first, so it is
    delivered at once."""

    text: str
    images: tuple[str, ...] = field(default=())  # data URLs
    interrupt: bool = False
    kind: Literal["user_message"] = "user_message"


@dataclass(frozen=True, slots=True)
class EditQueued:
    """Change the text of a queued message not yet delivered (named by its `message_id`)."""

    message_id: str
    text: str
    kind: Literal["edit_queued"] = "edit_queued"


@dataclass(frozen=True, slots=True)
class CancelQueued:
    """Withdraw a queued message not yet delivered."""

    message_id: str
    kind: Literal["cancel_queued"] = "cancel_queued"


@dataclass(frozen=True, slots=True)
class AnswerQuestion:
    """The answer to one question, named by the id its `QuestionAsked` event carried."""

    question_id: str
    answer: Answer
    by: str = ""  # the front end answering, as `QuestionAnswered.by` will say
    kind: Literal["answer"] = "answer"


@dataclass(frozen=True, slots=True)
class Cancel:
    """Stop the task now; it is saved and can be resumed."""

    kind: Literal["cancel"] = "cancel"


@dataclass(frozen=True, slots=True)
class Compact:
    """Replace the conversation by a summary the model writes (`/compact`, `/smol`)."""

    kind: Literal["compact"] = "compact"


@dataclass(frozen=True, slots=True)
class SetMode:
    """Plan or Act from the next request on (announced by a `mode_changed` event)."""

    mode: Literal["act", "plan"]
    kind: Literal["set_mode"] = "set_mode"


@dataclass(frozen=True, slots=True)
class SetModel:
    """Talk to another model from the next request on, in one mode or both.

    `model` is `[PROVIDER/]MODEL` as `/model` takes it, or the label of a saved profile's model.
    """

    model: str
    mode: Literal["act", "plan", "both"] = "both"
    kind: Literal["set_model"] = "set_model"


@dataclass(frozen=True, slots=True)
class SetApprovalPolicy:
    """What runs without asking, from the next action on (an editor's preset)."""

    policy: AutoApprove
    kind: Literal["set_approval_policy"] = "set_approval_policy"


@dataclass(frozen=True, slots=True)
class ProceedWhileRunning:
    """Stop waiting for the running command: it keeps running in the background and the model
    gets its output so far."""

    kind: Literal["proceed"] = "proceed"


@dataclass(frozen=True, slots=True)
class StopProcess:
    """Stop one of the task's background processes (numbered as `TaskHandle.processes()`)."""

    number: int
    kind: Literal["stop_process"] = "stop_process"


@dataclass(frozen=True, slots=True)
class SetGoal:
    """Verify the task's completion with `command` from now on: only its exit 0 completes the
    task, and after `max_attempts` failed checks (0: the default) the task ends unverified.
    An empty `command` removes the goal."""

    command: str
    max_attempts: int = 0
    kind: Literal["set_goal"] = "set_goal"


Command: TypeAlias = (
    UserMessage
    | EditQueued
    | CancelQueued
    | AnswerQuestion
    | Cancel
    | Compact
    | SetMode
    | SetModel
    | SetApprovalPolicy
    | ProceedWhileRunning
    | StopProcess
    | SetGoal
)


@dataclass(frozen=True, slots=True)
class CommandEnvelope:
    """A command as it travels: the task it is for, and the sender's `request` id (any string or
    number), which the reply repeats."""

    task_id: str
    command: Command
    request: str | int | None = None


@dataclass(frozen=True, slots=True)
class Accepted:
    """The reply to a command the task carried out (or, for a cancel, began to)."""

    task_id: str
    request: str | int | None = None
    kind: Literal["accepted"] = "accepted"


@dataclass(frozen=True, slots=True)
class Rejected:
    """The reply to a command that was not carried out, and why; the task goes on as before."""

    task_id: str
    error: str
    request: str | int | None = None
    kind: Literal["rejected"] = "rejected"


Reply: TypeAlias = Accepted | Rejected
