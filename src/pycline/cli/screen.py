"""The one way a terminal shows a task's events: the interactive session in colour with its
symbols, `pycline run` in plain words a script can grep, `pycline attach` like the session.

Both say the same things in the same order; a `Look` holds the few words and colours in which
they differ, so a new event is added to one `match`, not to each terminal.
"""

from __future__ import annotations

import os
import shutil
import sys
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from typing import TextIO, assert_never

from pycline.cli import render
from pycline.cli.notices import Shown
from pycline.cli.style import style
from pycline.events import (
    BudgetQuestion,
    BudgetStatus,
    CheckpointCreated,
    CompletionResult,
    ErrorEvent,
    Event,
    MessagesQueued,
    ModeChanged,
    Notice,
    PlanResponse,
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


def budget_line(b: BudgetStatus | BudgetQuestion) -> str:
    """`spent / cap` for one cap, e.g. `task budget $0.42 / $1.00`."""
    if b.unit == "usd":
        return f"{b.scope} budget ${b.spent:.2f} / ${b.cap:.2f}"
    return f"{b.scope} budget {b.spent:,.0f} / {b.cap:,.0f} tokens"


def queued_lines(q: MessagesQueued) -> list[str]:
    """What the user's queued messages are doing: sent to the model, or waiting (numbered, as
    `/queue` edits and drops them)."""
    if q.delivered:
        return [f"› sent: {_short(m.text)}" for m in q.delivered]
    if not q.pending:
        return ["queue empty"]
    head = "queued, sent after the running step (/queue edits or drops):"
    return [head, *(f"  {i}. {_short(m.text)}" for i, m in enumerate(q.pending, 1))]


def _short(text: str, width: int = 100) -> str:
    line = " ".join(text.split())
    return line if len(line) <= width else line[: width - 1] + "…"


def subagent_line(s: SubagentProgress) -> str:
    """One line per step of a sub-agent: which, its state, its latest tool, its spend."""
    agent = f" {s.agent}" if s.agent else ""
    latest = f" · {s.latest_tool}" if s.latest_tool else ""
    tokens = s.tokens_in + s.tokens_out
    spent = f"{tokens:,} tokens, ${s.cost:.4f}" if tokens else f"${s.cost:.4f}"
    return f"sub-agent{agent} {s.index}/{s.total} {s.status}{latest} ({spent})"


def _plain(text: str, *_: str) -> str:
    return text


def _session_usage(u: Usage) -> str:
    return (
        f"  ↑{u.input_tokens} ↓{u.output_tokens}{render.cache_note(u)} · ${u.cost:.4f}"
        f" · task ${u.task_cost:.4f} · context {u.context_tokens:,}/{u.context_window:,}"
    )


def _run_usage(u: Usage) -> str:
    return (
        f"  tokens {u.input_tokens} in / {u.output_tokens} out{render.cache_note(u)}"
        f" · ${u.cost:.4f} (task ${u.task_cost:.4f})"
    )


@dataclass(frozen=True, slots=True)
class Look:
    """The words and colours of one kind of terminal; `{}` marks where the value goes."""

    paint: Callable[..., str]  # (text, *style names) -> text to print
    thinking: bool  # show the model's reasoning as it streams
    tool: str
    failed: str
    plan: str
    mode: str  # with {mode} (or {MODE}) and {model}
    completed: str
    try_command: str  # the command that shows the result; "" to leave it out
    notice: str
    progress: str  # with {done}, {total} and {now}
    detail: str  # budgets and sub-agents
    usage: Callable[[Usage], str]


SESSION = Look(
    paint=style,
    thinking=True,
    tool="⚙ {}",
    failed="  ✗ {}",
    plan="Plan:",
    mode="Switched to {MODE} MODE ({model})",
    completed="✔ Task completed",
    try_command="  try: {}",
    notice="{}",
    progress="TODOs {done}/{total}{now}",
    detail="{}",
    usage=_session_usage,
)
PLAIN = Look(
    paint=_plain,
    thinking=False,
    tool="> {}",
    failed="  failed: {}",
    plan="Plan:",
    mode="note: switched to {mode} mode ({model})",
    completed="Task completed:",
    try_command="",
    notice="note: {}",
    progress="  progress {done}/{total}{now}",
    detail="  {}",
    usage=_run_usage,
)


class Screen:
    """Writes events to `out` in `look`, keeping track of a half-written line."""

    def __init__(self, look: Look, *, out: TextIO | None = None, shown: Shown | None = None):
        self.look = look
        self.out = out
        self.shown = shown or Shown()
        self.output = render.BoundedOutput()
        self.mid_line = False
        self._in_reasoning = False

    def write(self, text: str) -> None:
        out = self.out or sys.stdout  # looked up late: tests swap sys.stdout
        out.write(text)
        out.flush()
        if text:
            self.mid_line = not text.endswith("\n")

    def prose(self, text: str) -> str:
        """pycline's own sentences, wrapped at word boundaries to a terminal's width (a terminal
        cuts long lines mid-word); text for a pipe or a file is left as it is."""
        out = self.out or sys.stdout
        if not out.isatty():
            return text
        try:  # the terminal's own width ($COLUMNS may be left over from another one)
            columns = os.get_terminal_size(out.fileno()).columns
        except (OSError, ValueError):
            columns = shutil.get_terminal_size().columns
        width = max(40, columns - 1)
        return "\n".join(textwrap.fill(part, width) if part else "" for part in text.split("\n"))

    def line(self, text: str) -> None:
        if self.mid_line:
            self.write("\n")
        self.write(text + "\n")

    def show(self, event: Event) -> None:
        look, paint = self.look, self.look.paint
        if self._in_reasoning and not isinstance(event, ReasoningDelta):
            self._in_reasoning = False
            self.line("")
        match event:
            case ReasoningDelta(text=text):
                if look.thinking:
                    if not self._in_reasoning:
                        self._in_reasoning = True
                        self.line(paint("thinking…", "dim"))
                    self.write(paint(text, "dim"))
            case TextDelta(text=text):
                self.write(text)
            case TextDone():
                if self.mid_line:
                    self.line("")
            case ToolStarted(summary=summary):
                self.line(paint(look.tool.format(summary), "cyan"))
            case ToolOutput(text=text):
                self.write(self.output.feed(text))
            case ToolFinished(tool=tool, ok=ok, result=result):
                for line in self.output.finish():
                    self.line(paint(line, "dim"))
                if not ok:
                    first, *more = render.failure_reason(result)
                    self.line(paint(look.failed.format(first), "red"))
                    for line in more:
                        self.line(paint(f"    {line}", "red"))
                elif render.shows_result(tool):
                    for line in render.shown_result(result):
                        self.line(paint(f"  {line}", "dim"))
            case PlanResponse(response=response):
                self.line(paint(look.plan, "cyan", "bold"))
                self.line(response)
            case ModeChanged(mode=mode, model=model):
                said = look.mode.format(mode=mode, MODE=mode.upper(), model=model)
                self.line(paint(said, "cyan"))
            case CompletionResult(result=result, command=command):
                self.line(paint(look.completed, "green", "bold"))
                self.line(result)
                if command and look.try_command:
                    self.line(paint(look.try_command.format(command), "dim"))
            case Notice(text=text):
                if (fresh := self.shown.notice(text)) is not None:
                    self.line(paint(self.prose(look.notice.format(fresh)), "yellow"))
            case TaskProgress(completed=done, total=total, current=current):
                now = f" · {current}" if current else ""
                self.line(paint(look.progress.format(done=done, total=total, now=now), "cyan"))
            case BudgetStatus() as b:
                self.line(paint(look.detail.format(budget_line(b)), "dim"))
            case SubagentProgress() as sub:
                self.line(paint(look.detail.format(subagent_line(sub)), "dim"))
            case MessagesQueued() as queued:
                for line in queued_lines(queued):
                    self.line(paint(look.detail.format(line), "cyan"))
            case ErrorEvent(text=text):
                self.shown.error(text)
                self.line(paint(f"error: {text}", "red"))
            case Usage() as u:
                self.line(paint(look.usage(u), "dim"))
            case (
                TaskStarted()
                | RequestStarted()
                | ToolPartial()
                | CheckpointCreated()
                | TaskEnded()
                | QuestionAsked()
                | QuestionAnswered()
            ):
                pass  # shown another way (the question's prompt) or not at all in a terminal
            case _:
                assert_never(event)
