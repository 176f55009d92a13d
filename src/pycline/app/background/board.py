"""The board: every task of the user running anywhere on the machine, with status and cost.

Data for any front end (`pycline tasks`, the web UI). Background tasks stay listed once ended; a
background task whose process died without writing its end is shown as failed. A task of a
terminal, web UI or editor is listed while its process runs it; one whose process died (killed,
crashed) is never listed, and its leftovers are removed.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pycline.app.background.state import (
    FINISHED,
    BgState,
    BgStatus,
    FrontEnd,
    forget,
    load_all,
    process_alive,
    still_running,
)


@dataclass(frozen=True, slots=True)
class BoardEntry:
    id: str
    task: str
    workspace: str
    status: BgStatus
    cost: float
    started: float
    ended: float | None
    task_id: str | None
    question: str | None  # one line: what it is waiting for
    reason: str
    front_end: FrontEnd
    pid: int  # the process running it


def _question_line(state: BgState) -> str | None:
    q = state.question
    if not q:
        return None
    question = q.get("question") or {}
    text = question.get("summary") or question.get("question") or question.get("kind", "")
    return str(text).splitlines()[0][:200] if text else "a question"


def board(home: Path) -> list[BoardEntry]:
    entries = []
    for state in load_all(home):
        status, reason = state.status, state.reason
        if state.front_end != "background" and not still_running(state):
            forget(home, state.id)  # what a killed process left behind
            continue
        if status not in FINISHED and not process_alive(state.pid):
            status, reason = "failed", reason or "the background process ended unexpectedly"
        entries.append(
            BoardEntry(
                id=state.id,
                task=state.task,
                workspace=state.workspace,
                status=status,
                cost=state.cost,
                started=state.started,
                ended=state.ended,
                task_id=state.task_id,
                question=_question_line(state) if status == "waiting" else None,
                reason=reason,
                front_end=state.front_end,
                pid=state.pid,
            )
        )
    return entries
