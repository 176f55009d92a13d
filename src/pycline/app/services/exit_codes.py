"""The exit codes of `pycline` commands: the one list a script can rely on.

Each code says one thing, so a script tells "it worked" from "it ran but needs a person" from
"it broke" without parsing output. docs/reference/exit-codes.md lists them (a test keeps the page
and this table the same); a new end of a run gets a new member here, never a reused number.
"""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    OK = 0
    FAILED = 1
    USAGE = 2
    OVER_BUDGET = 3
    REFUSED = 4
    UNVERIFIED = 5
    INTERRUPTED = 130


MEANINGS: dict[ExitCode, str] = {
    ExitCode.OK: (
        "the task completed (headless, background, attach); every task of a batch succeeded; "
        "any other command did what it was asked"
    ),
    ExitCode.FAILED: (
        "the task ended without completing (an error, the mistake limit, stopped); a batch in "
        "which any task did not succeed; `pycline doctor` found something broken"
    ),
    ExitCode.USAGE: (
        "nothing ran: bad arguments, an unreadable task or tasks file, bad settings, an unknown "
        "task id"
    ),
    ExitCode.OVER_BUDGET: (
        "a spending cap (`maxTaskCost`, `maxTaskTokens` and the others) stopped the task"
    ),
    ExitCode.REFUSED: (
        "a headless run refused an action that needed approval (run without `--yes`, or a path "
        "outside the workspace), even if the model then said it was done"
    ),
    ExitCode.UNVERIFIED: (
        "the task's goal check (`--verify CMD`) still failed when its verification attempts "
        "(`--max-verify`) ran out"
    ),
    ExitCode.INTERRUPTED: "Ctrl-C (or SIGINT) stopped it; the task is saved and can be resumed",
}
