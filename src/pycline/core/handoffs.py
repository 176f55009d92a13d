"""`condense` and `new_task`: tools that act on the task itself with a summary the model wrote.

Both show the summary for approval (an edit-class approval: `--yes` approves it headless). A
condense replaces the history by the task and the summary, as `/compact` does with a summary
it asks for; the model is then told to ask what to do next. A new task ends this one with the
summary as the next task's text; the app's runner starts it. Typed feedback instead of approval
goes back to the model, and the task carries on.
"""

from __future__ import annotations

from typing import Final

from pycline.context.condense import history_from_summary
from pycline.core.capability import Capability, RunContext
from pycline.core.options import TaskOutcome
from pycline.core.turn import Step
from pycline.events import ApprovalQuestion, Notice
from pycline.messages import TextContent
from pycline.prompts import responses
from pycline.tools.base import ToolCall

CONDENSED: Final = (
    "The conversation was condensed into the summary above at the user's request. Ask the user "
    "what to do next with ask_followup_question; do not act on the summary yet."
)
NEW_TASK_STARTED: Final = "The user has created a new task with the provided context."


class Handoffs(Capability):
    """Runs the hand-off tools (their facts' effect is "handoff"); ends the task after an
    approved `new_task`, handing its summary over as the next task."""

    runs = "handoff"

    def __init__(self) -> None:
        self.next_task: str | None = None

    async def run_tool(self, ctx: RunContext, call: ToolCall, call_id: str) -> Step:
        name, context = call.name, call.params.get("context", "")
        header = responses.tool_header(name)
        if not context.strip():
            message = responses.tool_error(name, "Missing value for required parameter 'context'.")
            return Step([TextContent(f"{header}\n{message}")])
        label = (
            "Start a new task with context" if name == "new_task" else "Condense the conversation"
        )
        question = ApprovalQuestion(name, label, preview=context)
        approval = await ctx.approve(question, "edit", outside_workspace=False)
        if not approval.approved:
            text = responses.with_feedback(responses.DENIED, approval.feedback)
            return Step([TextContent(f"{header}\n{text}")])
        if name == "new_task":
            self.next_task = context.strip()
            return Step([TextContent(f"{header}\n{NEW_TASK_STARTED}")], handed_over=True)
        done = Step([TextContent(f"{header}\n{CONDENSED}")], handed_over=True)
        if not ctx.history:
            return done
        ctx.replace_history(history_from_summary(ctx.history[0], context, {}))
        ctx.say(Notice(f"History condensed into a {len(context):,}-character summary."))
        return Step(done.content, replaced_history=True, handed_over=True)

    async def after_step(self, ctx: RunContext) -> TaskOutcome | None:
        if self.next_task is None:
            return None
        return TaskOutcome(True, "handed over to a new task", next_task=self.next_task)
