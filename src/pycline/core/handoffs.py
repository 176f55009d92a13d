"""`condense` and `new_task`: tools that act on the task itself with a summary the model wrote.

Both show the summary for approval (an edit-class approval: `--yes` approves it headless). A
condense replaces the history by the task and the summary, as `/compact` does with a summary
it asks for; the model is then told to ask what to do next. A new task ends this one with the
summary as the next task's text; the front end (or the headless runner) starts it. Typed feedback
instead of approval goes back to the model, and the task carries on.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from pycline.context.condense import history_from_summary
from pycline.events import ApprovalQuestion, Notice
from pycline.messages import TextContent
from pycline.prompts import responses

if TYPE_CHECKING:
    from pycline.core.task import Task

CONDENSED: Final = (
    "The conversation was condensed into the summary above at the user's request. Ask the user "
    "what to do next with ask_followup_question; do not act on the summary yet."
)
NEW_TASK_STARTED: Final = "The user has created a new task with the provided context."


@dataclass(frozen=True, slots=True)
class HandoffResult:
    text: str
    replaced_history: bool = False  # the result is not an answer to a call still in history
    next_task: str | None = None
    declined: bool = False


async def run_handoff(task: Task, name: str, context: str) -> HandoffResult:
    header = responses.tool_header(name)
    if not context.strip():
        message = responses.tool_error(name, "Missing value for required parameter 'context'.")
        return HandoffResult(f"{header}\n{message}", declined=True)
    label = "Condense the conversation" if name == "condense" else "Start a new task with context"
    question = ApprovalQuestion(name, label, preview=context)
    approval = await task.approver(question, "edit", outside_workspace=False)
    if not approval.approved:
        text = responses.with_feedback(responses.DENIED, approval.feedback)
        return HandoffResult(f"{header}\n{text}", declined=True)
    if name == "new_task":
        return HandoffResult(f"{header}\n{NEW_TASK_STARTED}", next_task=context.strip())
    if not task.history:
        return HandoffResult(f"{header}\n{CONDENSED}")
    task.history[:] = history_from_summary(task.history[0], context, {})
    task.context.reset()
    task.recorder.context_changed(task.context.to_json())
    task.recorder.history_changed(task.history)
    task.say(Notice(f"History condensed into a {len(context):,}-character summary."))
    return HandoffResult(f"{header}\n{CONDENSED}", replaced_history=True)


def as_content(result: HandoffResult, call_id: str | None) -> TextContent:
    """A result answering its call, unless the call is no longer in history."""
    return TextContent(result.text, None if result.replaced_history else call_id)
