"""The board as the web UI reads it: background tasks of every process, from their state files."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from pycline.app.background import state as bg_state
from pycline.app.background.board import board
from pycline.app.background.state import BgState


def _dead_pid() -> int:
    proc = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    return int(proc.stdout)


def test_the_board_lists_every_task_with_status_cost_and_question(isolated_home: Path) -> None:
    question = {
        "type": "question",
        "question_id": "t-q1",
        "question": {"kind": "approval", "summary": "execute_command rm -rf build"},
    }
    states = [
        BgState(
            "bg-000000000001",
            "fix it",
            "/w",
            os.getpid(),
            "waiting",
            1.0,
            cost=0.25,
            question=question,
        ),
        BgState(
            "bg-000000000002",
            "done",
            "/w",
            _dead_pid(),
            "completed",
            2.0,
            cost=1.5,
            ended=3.0,
            task_id="123",
        ),
        BgState("bg-000000000003", "lost", "/w", _dead_pid(), "running", 3.0),
    ]
    for s in states:
        bg_state.save(isolated_home, s)
    (isolated_home / "background" / "bg-000000000004.json").write_text("{torn")
    entries = {e.id: e for e in board(isolated_home)}
    assert list(entries) == ["bg-000000000001", "bg-000000000002", "bg-000000000003"]
    waiting = entries["bg-000000000001"]
    assert waiting.status == "waiting" and waiting.cost == 0.25
    assert waiting.question == "execute_command rm -rf build"
    assert entries["bg-000000000002"].status == "completed"
    assert entries["bg-000000000002"].task_id == "123"
    lost = entries["bg-000000000003"]
    assert lost.status == "failed" and "ended unexpectedly" in lost.reason


def test_a_live_task_is_listed_only_while_the_process_that_wrote_it_runs(
    isolated_home: Path,
) -> None:
    me, started = os.getpid(), bg_state.process_start(os.getpid())
    assert started is not None
    running = BgState("live-000000000001", "typed", "/w", me, "running", 1.0, front_end="web")
    reused = running.updated(id="live-000000000002", pid_start=started + 1)  # pid given again
    dead = running.updated(id="live-000000000003", pid=_dead_pid())
    for state in (running.updated(pid_start=started), reused, dead):
        bg_state.save(isolated_home, state)
    assert [(e.id, e.front_end) for e in board(isolated_home)] == [("live-000000000001", "web")]
    left = sorted(p.name for p in (isolated_home / "background").iterdir())
    assert left == ["live-000000000001.json"]  # the stale records are removed
