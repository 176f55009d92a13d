"""The compact prompt profile: a small model is offered the core tools, each in a line with one
worked example; a larger one the full prompt; the `promptProfile` setting overrides either."""

from __future__ import annotations

from pathlib import Path

from pycline.app.builders import wiring
from pycline.providers.base import ModelInfo
from pycline.providers.scripted import ScriptedProvider

CORE = {"read_file", "search_files", "list_files", "replace_in_file", "write_to_file",
        "execute_command", "attempt_completion"}  # fmt: skip


def provider(parameters: int) -> ScriptedProvider:
    made = ScriptedProvider([])
    made.model_info = ModelInfo("m", parameter_count=parameters, local=True)
    return made


def act_profile(parameters: int, workspace: Path, setting: str = "auto") -> wiring.ModeProfile:
    small = provider(parameters)
    tools = wiring.default_tools(browser=False)
    return wiring.mode_profiles(small, small, tools, workspace, profile=setting)["act"]  # type: ignore[arg-type]


def test_a_small_model_gets_the_core_tools_in_a_short_prompt(workspace: Path) -> None:
    compact = act_profile(1_500_000_000, workspace)
    full = act_profile(70_000_000_000, workspace)
    assert {t.spec.name for t in compact.tools} == CORE
    assert {"web_fetch", "ask_followup_question"} <= {t.spec.name for t in full.tools}
    assert len(compact.system_prompt) < 0.6 * len(full.system_prompt)
    for name in CORE:  # one worked example per tool
        assert compact.system_prompt.count(f"<{name}>\n") == 1, name
    assert "## web_fetch" not in compact.system_prompt
    assert "## read_file" not in compact.native_prompt  # native calls carry their own schemas


def test_the_setting_overrides_the_size(workspace: Path) -> None:
    assert {t.spec.name for t in act_profile(70_000_000_000, workspace, "compact").tools} == CORE
    assert "web_fetch" in {t.spec.name for t in act_profile(1_000_000_000, workspace, "full").tools}
    # Unknown size: the full prompt.
    assert "web_fetch" in {t.spec.name for t in act_profile(0, workspace).tools}


async def test_a_small_model_task_goes_without_the_checklist_prompt(
    isolated_home: Path, workspace: Path
) -> None:
    from pycline.app.builders.builder import TaskBuilder
    from pycline.app.settings.config import ModelConfig
    from pycline.core.approval import AutoApprove
    from pycline.core.task import TaskSettings
    from tests.core.harness import RecordingHost, complete

    texts = {}
    for parameters in (1_500_000_000, 70_000_000_000):
        model = provider(parameters)
        # Twice: a small model's first completion, with nothing done, is sent back once.
        model.replies += ScriptedProvider.of(complete(), complete()).replies
        builder = TaskBuilder(isolated_home, ModelConfig(provider="scripted"))
        task = builder.new_task(
            "t",
            RecordingHost(),
            workspace,
            TaskSettings(auto_approve=AutoApprove()),
            provider=model,
        )
        assert (await task.start("fix it")).completed
        texts[parameters] = model.requests[0].messages[0].text
        await builder.close()
    assert "Task progress" not in texts[1_500_000_000]
    assert "Task progress" in texts[70_000_000_000]


async def test_a_small_models_reminders_name_only_the_tools_it_is_offered(
    isolated_home: Path, workspace: Path
) -> None:
    from pycline.app.builders.builder import TaskBuilder
    from pycline.app.settings.config import ModelConfig
    from pycline.core.approval import AutoApprove
    from pycline.core.task import TaskSettings
    from tests.core.harness import RecordingHost, complete

    model = provider(1_500_000_000)
    ask = "<ask_followup_question>\n<question>What next?</question>\n</ask_followup_question>"
    for reply in ("I think it is fine.", ask, complete()):
        model.replies.append(ScriptedProvider.of(reply).replies[0])
    builder = TaskBuilder(isolated_home, ModelConfig(provider="scripted"))
    task = builder.new_task(
        "t", RecordingHost(), workspace, TaskSettings(auto_approve=AutoApprove()), provider=model
    )
    assert (await task.start("fix it")).completed
    await builder.close()
    no_tool, unknown = (model.requests[i].messages[-1].text for i in (1, 2))
    assert "You did not use a tool" in no_tool and "ask_followup_question" not in no_tool
    assert "Unknown tool 'ask_followup_question'" in unknown
    assert "They are: read_file, search_files" in unknown


async def test_a_model_on_this_machine_gets_six_tries_before_the_user_is_asked(
    isolated_home: Path, workspace: Path
) -> None:
    from pycline.app.builders.builder import TaskBuilder
    from pycline.app.settings.config import ModelConfig
    from pycline.core.approval import AutoApprove
    from pycline.core.task import TaskSettings
    from pycline.events import MistakeLimitQuestion
    from tests.core.harness import RecordingHost, complete

    asked = {}
    for local in (True, False):
        model = provider(1_500_000_000)
        model.model_info = ModelInfo("m", parameter_count=1_500_000_000, local=local)
        for reply in ["No tool here."] * 5 + [complete(), complete()]:
            model.replies.append(ScriptedProvider.of(reply).replies[0])
        builder = TaskBuilder(isolated_home, ModelConfig(provider="scripted"))
        host = RecordingHost()
        task = builder.new_task(
            "t", host, workspace, TaskSettings(auto_approve=AutoApprove()), provider=model
        )
        await task.start("fix it")
        await builder.close()
        asked[local] = [q for q in host.questions if isinstance(q, MistakeLimitQuestion)]
    assert asked[True] == []  # five mistakes, then the call: no question
    assert [q.count for q in asked[False]] == [3]


async def test_a_small_model_is_shown_the_files_its_task_names_with_the_task(
    isolated_home: Path, workspace: Path
) -> None:
    from pycline.app.builders.builder import TaskBuilder
    from pycline.app.settings.config import ModelConfig
    from pycline.core.approval import AutoApprove
    from pycline.core.named_files import LEAD
    from pycline.core.task import TaskSettings
    from pycline.events import Notice
    from tests.core.harness import RecordingHost, complete

    (workspace / "numbers.go").write_text("func Clamp() {}\n", encoding="utf-8")
    firsts, notices = {}, {}
    for parameters in (1_500_000_000, 70_000_000_000):
        model = provider(parameters)
        # Twice: a small model's first completion, with nothing done, is sent back once.
        model.replies += ScriptedProvider.of(complete(), complete()).replies
        builder = TaskBuilder(isolated_home, ModelConfig(provider="scripted"))
        host = RecordingHost()
        task = builder.new_task(
            "t", host, workspace, TaskSettings(auto_approve=AutoApprove()), provider=model
        )
        assert (await task.start("Clamp in numbers.go is wrong")).completed
        firsts[parameters] = model.requests[0].messages[0].text
        notices[parameters] = [e.text for e in host.events if isinstance(e, Notice)]
        await builder.close()
    small = firsts[1_500_000_000]
    assert small.index("</task>") < small.index(LEAD)
    assert '<file_content path="numbers.go">\nfunc Clamp() {}\n</file_content>' in small
    assert any("numbers.go" in n and "task" in n for n in notices[1_500_000_000])
    assert LEAD not in firsts[70_000_000_000] and "file_content" not in firsts[70_000_000_000]


async def test_double_check_completion_is_on_for_a_small_model_and_follows_the_setting(
    isolated_home: Path, workspace: Path
) -> None:
    import json

    from pycline.app.builders.builder import TaskBuilder
    from pycline.app.settings.config import ModelConfig
    from pycline.core.approval import AutoApprove
    from pycline.core.task import TaskSettings
    from tests.core.harness import RecordingHost, complete

    write = "<write_to_file>\n<path>a.py</path>\n<content>\nx = 1\n</content>\n</write_to_file>"
    settings_file = isolated_home / "settings" / "settings.json"
    requests = {}
    for parameters, setting in ((1_500_000_000, None), (70_000_000_000, None),
                                (1_500_000_000, False), (70_000_000_000, True)):  # fmt: skip
        if setting is not None:
            settings_file.parent.mkdir(parents=True, exist_ok=True)
            settings_file.write_text(json.dumps({"doubleCheckCompletionEnabled": setting}))
        model = provider(parameters)
        model.replies += ScriptedProvider.of(write, complete(), complete()).replies
        builder = TaskBuilder(isolated_home, ModelConfig(provider="scripted"))
        task = builder.new_task(
            "t", RecordingHost(), workspace, TaskSettings(auto_approve=AutoApprove(yolo=True)),
            provider=model,
        )  # fmt: skip
        assert (await task.start("make a.py")).completed
        requests[(parameters, setting)] = len(model.requests)
        await builder.close()
    # Sent back once (three requests) where double-checking is on, two where it is off.
    assert requests == {
        (1_500_000_000, None): 3,
        (70_000_000_000, None): 2,
        (1_500_000_000, False): 2,
        (70_000_000_000, True): 3,
    }
