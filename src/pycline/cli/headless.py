"""`pycline run`: headless, for scripts and CI. No prompts; exit 0 only on completion."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, TextIO, assert_never

from pycline.app.builders.task_size import check_task_size
from pycline.app.services.text import clean, for_terminal
from pycline.cli import render
from pycline.cli.common import fail, overrides_of, refuse_auto, run_to_exit_code, workspace_dir
from pycline.cli.screen import PLAIN, Screen
from pycline.event_wire import envelope_json

if TYPE_CHECKING:
    from pycline.app.builders.mcp_login import McpOptions
from pycline.events import (
    ACCEPT,
    DENY,
    STOP,
    Answer,
    ApprovalQuestion,
    BudgetQuestion,
    CompletionQuestion,
    Envelope,
    ErrorRetryQuestion,
    Event,
    FollowupQuestion,
    MistakeLimitQuestion,
    PlanQuestion,
    Question,
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
        case MistakeLimitQuestion() | ErrorRetryQuestion() | BudgetQuestion():
            return Answer(STOP.id)
        case _:
            assert_never(question)


class HeadlessHost:
    """Plain-text rendering for `pycline run`; with `--json` the task's envelopes, one a line."""

    def __init__(self, *, json_mode: bool, out: TextIO = sys.stdout) -> None:
        self.json_mode = json_mode
        self.out = out
        self.screen = Screen(PLAIN, out=out)
        self.shown = self.screen.shown
        self.tally = render.Tally()
        self.refused = 0  # approvals answered "no" because nobody is there to say yes

    def show(self, envelope: Envelope) -> None:
        self.tally.observe(envelope.event)
        if self.json_mode:
            line = json.dumps(envelope_json(envelope), ensure_ascii=False)
            self.out.write(clean(line) + "\n")  # a stray lone surrogate cannot be printed
            self.out.flush()
            return
        self.say(envelope.event)

    def say(self, event: Event) -> None:
        self.screen.show(for_terminal(event))  # model text never reaches the terminal raw

    async def ask(self, question: Question) -> Answer:
        answer = headless_answer(question)
        if isinstance(question, ApprovalQuestion):
            self.refused += 1
        if not self.json_mode and isinstance(question, ApprovalQuestion):
            self.screen.line(f"[not approved] {for_terminal(question).summary}")
        return answer


def run_headless(ns: argparse.Namespace) -> int:
    from pycline.app.sessions.session import Session, TaskHandle, TaskOptions

    cwd = workspace_dir(ns)
    text = task_text(ns)
    if ns.max_verify and not ns.verify.strip():
        fail("--max-verify needs --verify CMD")
    if ns.auto:
        refuse_auto(cwd)
    options = TaskOptions(
        headless=True,
        approve_all_inside=ns.yes,
        verify=ns.verify.strip(),
        max_verify=ns.max_verify,
        auto=ns.auto,
    )

    async def start(session: Session) -> TaskHandle:
        check_task_size(text, session.config)
        return await session.new_task(text, mode="plan" if ns.plan else "act", options=options)

    host = HeadlessHost(json_mode=ns.json)
    tally = None if ns.json else host.tally
    mcp = mcp_client_options(ns, host.screen.line)
    return run_to_exit_code(
        cwd, overrides_of(ns), start, host, host.shown, tally, mcp=mcp, refused=lambda: host.refused
    )


def mcp_client_options(ns: argparse.Namespace, say: Callable[[str], None]) -> McpOptions:
    """What `--mcp-login` and `--mcp-elicitation` ask of the MCP servers' connections."""
    from pycline.app.builders.mcp_login import McpOptions, login_policy
    from pycline.app.settings.home import pycline_home

    def announce(server: str, url: str) -> None:
        say(f"[mcp] {server}: log in in your browser (opening {url})")

    login = login_policy(
        pycline_home(), interactive=bool(getattr(ns, "mcp_login", False)), announce=announce
    )
    return McpOptions(login=login, elicitation=getattr(ns, "mcp_elicitation", "decline"))


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
