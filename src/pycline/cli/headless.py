"""`pycline run`: headless, for scripts and CI. No prompts; exit 0 only on completion."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TextIO, assert_never

from pycline.cli import render
from pycline.cli.common import fail, overrides_of, run_to_exit_code, workspace_dir
from pycline.cli.notices import Shown
from pycline.cli.task_size import check_task_size
from pycline.event_wire import envelope_json
from pycline.events import (
    ACCEPT,
    DENY,
    STOP,
    Answer,
    ApprovalQuestion,
    BudgetQuestion,
    BudgetStatus,
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
    SubagentProgress,
    TaskEnded,
    TaskProgress,
    TaskStarted,
    TextDelta,
    TextDone,
    ToolFinished,
    ToolOutput,
    ToolPartial,
    ToolStarted,
    Usage,
)
from pycline.parsing.surrogates import clean
from pycline.parsing.terminal_text import for_terminal

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


def budget_line(b: BudgetStatus | BudgetQuestion) -> str:
    """`spent / cap` for one cap, e.g. `task budget $0.42 / $1.00`."""
    if b.unit == "usd":
        return f"{b.scope} budget ${b.spent:.2f} / ${b.cap:.2f}"
    return f"{b.scope} budget {b.spent:,.0f} / {b.cap:,.0f} tokens"


def subagent_line(s: SubagentProgress) -> str:
    """One line per step of a sub-agent: which, its state, its latest tool, its spend."""
    agent = f" {s.agent}" if s.agent else ""
    latest = f" · {s.latest_tool}" if s.latest_tool else ""
    tokens = s.tokens_in + s.tokens_out
    spent = f"{tokens:,} tokens, ${s.cost:.4f}" if tokens else f"${s.cost:.4f}"
    return f"sub-agent{agent} {s.index}/{s.total} {s.status}{latest} ({spent})"


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
        case MistakeLimitQuestion() | ErrorRetryQuestion() | BudgetQuestion():
            return Answer(STOP.id)
        case _:
            assert_never(question)


class HeadlessHost:
    """Plain-text rendering for `pycline run`; with `--json` the task's envelopes, one a line."""

    def __init__(self, *, json_mode: bool, out: TextIO = sys.stdout) -> None:
        self.json_mode = json_mode
        self.out = out
        self._mid_line = False
        self.shown = Shown()
        self.output = render.BoundedOutput()
        self.tally = render.Tally()

    def show(self, envelope: Envelope) -> None:
        self.tally.observe(envelope.event)
        if self.json_mode:
            line = json.dumps(envelope_json(envelope), ensure_ascii=False)
            self.out.write(clean(line) + "\n")  # a stray lone surrogate cannot be printed
            self.out.flush()
            return
        self.say(envelope.event)

    def say(self, event: Event) -> None:
        self._render(for_terminal(event))  # model text never reaches the terminal raw

    async def ask(self, question: Question) -> Answer:
        answer = headless_answer(question)
        if not self.json_mode and isinstance(question, ApprovalQuestion):
            self._line(f"[not approved] {for_terminal(question).summary}")
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
                shown = self.output.feed(text)
                self.out.write(shown)
                if shown:
                    self._mid_line = not shown.endswith("\n")
            case ToolFinished(tool=tool, ok=ok, result=result):
                for line in self.output.finish():
                    self._line(line)
                if not ok:
                    first, *more = render.failure_reason(result)
                    self._line(f"  failed: {first}")
                    for line in more:
                        self._line(f"    {line}")
                elif render.shows_result(tool):
                    for line in render.shown_result(result):
                        self._line(f"  {line}")
            case PlanResponse(response=response):
                self._line(f"Plan:\n{response}")
            case ModeChanged(mode=mode, model=model):
                self._line(f"note: switched to {mode} mode ({model})")
            case CompletionResult(result=result):
                self._line(f"Task completed:\n{result}")
            case Notice(text=text):
                if (fresh := self.shown.notice(text)) is not None:
                    self._line(f"note: {fresh}")
            case TaskProgress(completed=done, total=total, current=current):
                self._line(f"  progress {done}/{total}" + (f" · {current}" if current else ""))
            case BudgetStatus() as b:
                self._line(f"  {budget_line(b)}")
            case SubagentProgress() as sub:
                self._line(f"  {subagent_line(sub)}")
            case ErrorEvent(text=text):
                self.shown.error(text)
                self._line(f"error: {text}")
            case Usage() as u:
                cache = render.cache_note(u)
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
    text = task_text(ns)
    options = TaskOptions(headless=True, approve_all_inside=ns.yes)

    async def start(session: Session) -> TaskHandle:
        check_task_size(text, session.config)
        return await session.new_task(text, mode="plan" if ns.plan else "act", options=options)

    host = HeadlessHost(json_mode=ns.json)
    tally = None if ns.json else host.tally
    return run_to_exit_code(cwd, overrides_of(ns), start, host, host.shown, tally)


def task_text(ns: argparse.Namespace) -> str:
    """The task from the words given, `-` (standard input) or --task-file; exits when empty."""
    if ns.task_file and ns.task:
        fail("give the task as words or with --task-file, not both")
    from_stdin = ns.task == ["-"] or ns.task_file == "-"
    try:
        if from_stdin:
            text = sys.stdin.read()
        elif ns.task_file:
            text = Path(ns.task_file).expanduser().read_text(encoding="utf-8")
        else:
            text = " ".join(ns.task)
    except (OSError, UnicodeDecodeError) as exc:
        fail(f"cannot read the task from {ns.task_file or 'standard input'}: {exc}")
    if not text.strip():
        fail("no task given (words, `-` for standard input, or --task-file FILE)")
    return text.strip()
