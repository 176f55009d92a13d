"""Auto-approval policy (SPEC §7): decide alone when settings allow, otherwise ask the user."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from pycline.commands import AutoApprove
from pycline.events import (
    ALWAYS_ALLOW,
    APPROVE,
    Answer,
    ApprovalQuestion,
    Event,
    Question,
    ToolOutput,
)
from pycline.tools.base import Approval, ApprovalCategory, AskFn

__all__ = ["DANGEROUS_REFUSED", "ApprovalPolicy", "AutoApprove", "CallScope"]

DANGEROUS_REFUSED = (
    "This command is dangerous; --yes never approves such commands, so it was not run. "
    "Find a safer way, or finish and tell the user what to run themselves."
)


class ApprovalPolicy:
    """The `Approver` a task hands to its tools.

    `approve_all_inside` is the headless `--yes`: it approves any action inside the workspace, but a
    path outside the workspace still needs an explicit answer (or the matching *Externally setting)
    and a dangerous command is refused outright.
    """

    def __init__(
        self,
        settings: AutoApprove,
        ask: AskFn,
        *,
        approve_all_inside: bool = False,
        show_edit: Callable[[ApprovalQuestion], None] | None = None,
    ) -> None:
        self.settings = settings
        self._ask = ask
        self.approve_all_inside = approve_all_inside
        # An edit approved without asking is still shown (its diff), as an asked one would be.
        self._show_edit = show_edit

    async def __call__(
        self, question: ApprovalQuestion, category: ApprovalCategory, *, outside_workspace: bool
    ) -> Approval:
        outside = outside_workspace or question.outside_workspace
        if self.settings.allows(category, outside_workspace=outside):
            return self._unasked(question, category)
        if self.approve_all_inside and category == "dangerous_command":
            return Approval(False, DANGEROUS_REFUSED)
        if self.approve_all_inside and not outside:
            return self._unasked(question, category)
        answer: Answer = await self._ask(_with_outside(question, outside))
        always = answer.chose(ALWAYS_ALLOW) and any(
            o.id == ALWAYS_ALLOW.id for o in question.options
        )
        approved = answer.chose(APPROVE) or always
        return Approval(approved, answer.text, answer.edited_content, always=always)

    def _unasked(self, question: ApprovalQuestion, category: ApprovalCategory) -> Approval:
        if category == "edit" and question.preview and self._show_edit is not None:
            self._show_edit(question)
        return Approval(True)


def _with_outside(question: ApprovalQuestion, outside: bool) -> Question:
    if question.outside_workspace == outside:
        return question
    return dataclasses.replace(question, outside_workspace=outside)


class CallScope:
    """What one tool call shows and asks, stamped with its id (its output, its questions, an
    unasked edit's diff), so front ends tie them to the call without a task-wide "current call"."""

    def __init__(
        self,
        call_id: str,
        say: Callable[[Event], None],
        ask: AskFn,
        approver: ApprovalPolicy,
    ) -> None:
        self._id = call_id
        self._say = say
        self._ask = ask
        self._approver = approver

    def _stamped(self, question: ApprovalQuestion) -> ApprovalQuestion:
        if question.tool_call_id or not self._id:
            return question
        return dataclasses.replace(question, tool_call_id=self._id)

    def say(self, event: Event) -> None:
        if isinstance(event, ToolOutput) and not event.tool_call_id and self._id:
            event = dataclasses.replace(event, tool_call_id=self._id)
        self._say(event)

    async def ask(self, question: Question) -> Answer:
        if isinstance(question, ApprovalQuestion):
            question = self._stamped(question)
        return await self._ask(question)

    async def approve(
        self, question: ApprovalQuestion, category: ApprovalCategory, *, outside_workspace: bool
    ) -> Approval:
        return await self._approver(
            self._stamped(question), category, outside_workspace=outside_workspace
        )
