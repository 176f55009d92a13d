"""Spending caps, the focus chain and loop detection inside the loop, with a scripted model."""

from __future__ import annotations

from pathlib import Path

from pycline.core.budget import BudgetLimits, CostGovernor, SessionSpend
from pycline.core.focus_chain import FocusChain, FocusSettings
from pycline.events import Answer, BudgetQuestion, MistakeLimitQuestion, TaskProgress
from pycline.providers.scripted import ScriptedCall, ScriptedReply
from tests.core.harness import RecordingHost, complete, make_task, no, yes


def _list(path: str = ".", progress: str = "") -> ScriptedReply:
    args = {"path": path, **({"task_progress": progress} if progress else {})}
    return ScriptedReply(tool_calls=(ScriptedCall("list_files", args),))


async def test_a_reached_cap_asks_and_yes_raises_it_by_its_size(
    isolated_home: Path, workspace: Path
) -> None:
    host = RecordingHost()
    budget = CostGovernor(BudgetLimits(max_task_tokens=10))
    task, provider = make_task(isolated_home, workspace, [_list(), complete()], host, budget=budget)
    outcome = await task.start("go")
    assert outcome.completed
    (question,) = [q for q in host.questions if isinstance(q, BudgetQuestion)]
    assert question.scope == "task" and question.unit == "tokens" and question.cap == 10
    assert len(provider.requests) == 2


async def test_a_declined_cap_stops_before_the_next_request_and_counts_the_session(
    isolated_home: Path, workspace: Path
) -> None:
    host = RecordingHost(default=no)
    session = SessionSpend(earlier_today=5.0)
    budget = CostGovernor(BudgetLimits(max_daily_cost=5.0), session)
    task, provider = make_task(isolated_home, workspace, [_list(), complete()], host, budget=budget)
    outcome = await task.start("go")
    assert not outcome.completed and outcome.over_budget
    assert "day spending cap" in outcome.reason and provider.requests == []


def test_a_user_edit_of_the_focus_chain_file_is_picked_up_and_announced(tmp_path: Path) -> None:
    file = tmp_path / "focus_chain_taskid_t1.md"
    chain = FocusChain(file=file)
    shown = chain.update("- [ ] list\n- [ ] finish")
    assert shown is not None and (shown.completed, shown.total, shown.current) == (0, 2, "list")
    assert "# Focus Chain List for Task t1" in file.read_text(encoding="utf-8")
    assert chain.reminder(mode="act") == ("", None)  # just updated: nothing due
    file.write_text("- [x] list\n- [ ] finish\n- [ ] extra\n", encoding="utf-8")
    note, edited = chain.reminder(mode="act")
    assert edited == TaskProgress("- [x] list\n- [ ] finish\n- [ ] extra", 1, 3, "finish")
    assert "The user edited this list" in note and "1/3 items completed (33%)" in note
    file.unlink()
    chain.reminder(mode="act")
    assert chain.checklist == ""


def test_the_reminder_comes_after_the_interval_without_an_update(tmp_path: Path) -> None:
    chain = FocusChain(FocusSettings(remind_interval=3))
    chain.update("- [ ] a")
    notes = [chain.reminder(mode="act")[0] for _ in range(3)]
    assert notes[:2] == ["", ""] and "3 requests went by without an update" in notes[2]
    assert chain.reminder(mode="plan")[0].startswith("# Task progress (optional")


async def test_guidance_after_a_loop_lets_the_task_go_on(
    isolated_home: Path, workspace: Path
) -> None:
    host = RecordingHost()
    host.default = lambda q: (
        Answer(text="try src") if isinstance(q, MistakeLimitQuestion) else yes(q)
    )
    task, _ = make_task(isolated_home, workspace, [*[_list()] * 5, complete()], host)
    outcome = await task.start("go")
    assert outcome.completed
    assert sum(isinstance(q, MistakeLimitQuestion) for q in host.questions) == 1
