"""Desktop notifications (`notify-send`) when a task waits for the user (settings: notifications).

Fire and forget: the notifier runs in its own session with no pipes, so a slow or broken
notification daemon can never hold up the task; a missing `notify-send` just means no popup.
"""

from __future__ import annotations

import shutil
import subprocess
from typing import assert_never

from pycline.events import (
    ApprovalQuestion,
    BudgetQuestion,
    CompletionQuestion,
    ErrorRetryQuestion,
    FollowupQuestion,
    MistakeLimitQuestion,
    PlanQuestion,
    Question,
)


def describe_wait(question: Question) -> str:
    match question:
        case ApprovalQuestion(summary=summary):
            return f"Approval needed: {summary}"[:200]
        case FollowupQuestion(question=text):
            return f"Question: {text}"[:200]
        case CompletionQuestion() | PlanQuestion() | MistakeLimitQuestion() | ErrorRetryQuestion():
            return "The task is waiting for you."
        case BudgetQuestion():
            return "The spending cap is reached: raise it or stop."
        case _:
            assert_never(question)


def notify(title: str, body: str) -> subprocess.Popen[bytes] | None:
    """Show a desktop notification; returns the notifier process (None when there is none)."""
    program = shutil.which("notify-send")
    if program is None:
        return None
    try:
        return subprocess.Popen(
            [program, "--app-name=pycline", title, body],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
    except OSError:  # not executable, or the system is out of processes: no popup, no error
        return None
