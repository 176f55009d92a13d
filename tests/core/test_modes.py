"""Plan and Act: planning refuses edits, and switching to Act continues the task with its model."""

from __future__ import annotations

from pathlib import Path

from pycline.app.builders import wiring
from pycline.core.approval import AutoApprove
from pycline.core.task import Task, TaskSettings
from pycline.events import PlanQuestion
from pycline.providers.base import ModelInfo
from pycline.providers.scripted import ScriptedProvider
from pycline.testing import task_for
from pycline.workspace.paths import Workspace
from tests.core.harness import RecordingHost, complete, no, yes

WRITE = "<write_to_file>\n<path>plan.txt</path>\n<content>\nx\n</content>\n</write_to_file>"
PLAN = "<plan_mode_respond>\n<response>1. write plan.txt</response>\n</plan_mode_respond>"


def _task(
    home: Path,
    workspace: Path,
    plan: ScriptedProvider,
    act: ScriptedProvider,
    host: RecordingHost | None = None,
) -> Task:
    ws = Workspace.at(workspace)
    tools = wiring.default_tools(browser=False)
    profiles = wiring.mode_profiles(act, plan, tools, ws.root)
    return task_for(
        home,
        workspace,
        plan,
        host or RecordingHost(default=yes),
        settings=TaskSettings(auto_approve=AutoApprove(edit_files=True), mode="plan"),
        task_text="t",
        profiles=profiles,
    )


async def test_plan_then_act_uses_two_models_in_one_task(
    isolated_home: Path, workspace: Path
) -> None:
    planner = ScriptedProvider.of(WRITE, PLAN)
    planner.model_info = ModelInfo(id="planner-model")
    doer = ScriptedProvider.of(WRITE, complete())
    doer.model_info = ModelInfo(id="doer-model")
    host = RecordingHost(default=yes)
    task = _task(isolated_home, workspace, planner, doer, host)
    outcome = await task.start("add plan.txt")
    assert outcome.completed
    # Plan mode: the write was refused with a reason, then the plan was presented.
    assert len(planner.requests) == 2
    assert (
        "PLAN MODE" in planner.requests[0].system
        and "plan_mode_respond" in planner.requests[0].system
    )
    refused = planner.requests[1].messages[-1].text
    assert "not allowed in PLAN MODE" in refused
    # Act mode: the other model continues the same conversation, plan included.
    assert len(doer.requests) == 2
    first_act = doer.requests[0]
    assert "plan_mode_respond" not in first_act.system
    assert "ACT MODE" in first_act.messages[-1].text
    assert any("1. write plan.txt" in m.text for m in first_act.messages)
    assert (workspace / "plan.txt").read_text(encoding="utf-8") == "x\n"
    assert task.record.model == "doer-model"
    assert any(isinstance(q, PlanQuestion) for q in host.questions)


async def test_headless_plan_run_ends_with_the_plan(isolated_home: Path, workspace: Path) -> None:
    planner = ScriptedProvider.of(PLAN)
    task = _task(
        isolated_home, workspace, planner, ScriptedProvider.of(), RecordingHost(default=no)
    )
    outcome = await task.start("plan it")
    assert outcome.completed
    assert task.mode == "plan"
