"""`pycline run`: headless, for scripts and CI. No prompts; exit 0 only on completion."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TextIO, assert_never

from pycline.cli.common import overrides_of, run_to_exit_code, workspace_dir
from pycline.event_wire import envelope_json
from pycline.events import (
    ACCEPT,
    DENY,
    STOP,
    Answer,
    ApprovalQuestion,
    CheckpointCreated,
    CompletionQuestion,
    CompletionResult,
    Envelope,
    ErrorEvent,
    ErrorRetryQuestion,
    Event,
    FollowupQuestion,
    MistakeLimitQuestion,
    ModeChanged,
    Notice,
    PlanQuestion,
    PlanResponse,
    Question,
    QuestionAnswered,
    QuestionAsked,
    ReasoningDelta,
    RequestStarted,
    TaskEnded,
    TaskStarted,
    TextDelta,
    TextDone,
    ToolFinished,
    ToolOutput,
    ToolPartial,
    ToolStarted,
    Usage,
)

NO_USER = (
    "No user is available to answer (pycline is running headless). Decide yourself from the "
    "information you have, state your assumption, and continue."
)
NOT_APPROVED = (
    "pycline is running headless without --yes, so actions that need approval are refused. "
    "Continue without this action if you can, or finish and explain what needs approval."
)
OUTSIDE_REFUSED = (
    "This path is outside the workspace; headless runs never approve that, even with --yes."
)


def headless_answer(question: Question) -> Answer:
    match question:
        case ApprovalQuestion(outside_workspace=True):
            return Answer(DENY.id, OUTSIDE_REFUSED)
        case ApprovalQuestion():
            return Answer(DENY.id, NOT_APPROVED)
        case FollowupQuestion():
            return Answer(text=NO_USER)
        case PlanQuestion():
            return Answer(STOP.id)  # a headless plan run ends with the plan
        case CompletionQuestion():
            return Answer(ACCEPT.id)
        case MistakeLimitQuestion() | ErrorRetryQuestion():
            return Answer(STOP.id)
        case _:
            assert_never(question)


class HeadlessHost:
    """Plain-text rendering for `pycline run`; with `--json` the task's envelopes, one a line."""

    def __init__(self, *, json_mode: bool, out: TextIO = sys.stdout) -> None:
        self.json_mode = json_mode
        self.out = out
        self._mid_line = False

    def show(self, envelope: Envelope) -> None:
        if self.json_mode:
            self.out.write(json.dumps(envelope_json(envelope), ensure_ascii=False) + "\n")
            self.out.flush()
            return
        self.say(envelope.event)

    def say(self, event: Event) -> None:
        self._render(event)

    async def ask(self, question: Question) -> Answer:
        answer = headless_answer(question)
        if not self.json_mode and isinstance(question, ApprovalQuestion):
            self._line(f"[not approved] {question.summary}")
        return answer

    def _line(self, text: str) -> None:
        if self._mid_line:
            self.out.write("\n")
            self._mid_line = False
        self.out.write(text + "\n")
        self.out.flush()

    def _render(self, event: Event) -> None:
        match event:
            case TextDelta(text=text):
                self.out.write(text)
                self._mid_line = not text.endswith("\n")
                self.out.flush()
            case TextDone():
                if self._mid_line:
                    self._line("")
            case ToolStarted(summary=summary):
                self._line(f"> {summary}")
            case ToolOutput(text=text):
                self.out.write(text)
                self._mid_line = not text.endswith("\n")
            case ToolFinished(ok=False, result=result):
                self._line(
                    "  " + result.strip().splitlines()[0][:200] if result.strip() else "  failed"
                )
            case PlanResponse(response=response):
                self._line(f"Plan:\n{response}")
            case ModeChanged(mode=mode, model=model):
                self._line(f"note: switched to {mode} mode ({model})")
            case CompletionResult(result=result):
                self._line(f"Task completed:\n{result}")
            case Notice(text=text):
                self._line(f"note: {text}")
            case ErrorEvent(text=text):
                self._line(f"error: {text}")
            case Usage() as u:
                cache = ""
                if u.cache_read_tokens or u.cache_write_tokens:
                    cache = f" (cache {u.cache_read_tokens} read / {u.cache_write_tokens} write)"
                self._line(
                    f"  tokens {u.input_tokens} in / {u.output_tokens} out{cache}"
                    f" · ${u.cost:.4f} (task ${u.task_cost:.4f})"
                )
            case (
                TaskStarted()
                | RequestStarted()
                | ReasoningDelta()
                | ToolPartial()
                | ToolFinished()
                | CheckpointCreated()
                | TaskEnded()
                | QuestionAsked()
                | QuestionAnswered()
            ):
                pass  # shown another way (the question's prompt) or not at all in a terminal
            case _:
                assert_never(event)


def run_headless(ns: argparse.Namespace) -> int:
    from pycline.app.session import Session, TaskHandle, TaskOptions

    cwd = workspace_dir(ns)
    options = TaskOptions(headless=True, approve_all_inside=ns.yes)

    async def start(session: Session) -> TaskHandle:
        text = " ".join(ns.task)
        return await session.new_task(text, mode="plan" if ns.plan else "act", options=options)

    return run_to_exit_code(cwd, overrides_of(ns), start, HeadlessHost(json_mode=ns.json))
