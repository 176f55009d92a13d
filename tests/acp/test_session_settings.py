"""Modes, config options, slash commands, questions across prompts, plans, and prompt content."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import acp
import pytest
from acp import RequestError

from pycline.messages import ImageContent
from pycline.storage.task_store import TaskStore
from tests.acp.harness import (
    COMPLETE,
    RecordingClient,
    command,
    in_process,
    read,
    script_file,
    start,
    text,
    write,
)

PLAN = "<plan_mode_respond>\n<response>Step one, then two.</response>\n</plan_mode_respond>"
ASK = (
    "<ask_followup_question>\n<question>Which port?</question>\n"
    '<options>["8080", "9090"]</options>\n</ask_followup_question>'
)
PROGRESS = "- [x] read the code\n- [ ] change the port\n- [ ] run the tests"


async def test_plan_mode_is_a_mode_and_a_config_option_and_ends_the_turn_with_the_plan(
    tmp_path: Path, workspace: Path, isolated_home: Path
) -> None:
    script = script_file(tmp_path, PLAN, write("x.txt", "x\n"), COMPLETE)
    client = RecordingClient(answers=["allow_once"])
    async with in_process(client, isolated_home, script) as (conn, _):
        await conn.initialize(protocol_version=1, client_capabilities=client.capabilities())
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        assert session.modes is not None and session.modes.current_mode_id == "act"
        assert {o.id for o in session.config_options or []} >= {"mode", "model", "auto_approve"}
        sid = session.session_id
        await conn.set_session_mode(session_id=sid, mode_id="plan")
        first = await conn.prompt(session_id=sid, prompt=text("plan it"))
        assert first.stop_reason == "end_turn"
        assert "Step one, then two." in client.message_text()
        assert not (workspace / "x.txt").exists()
        changed = await conn.set_config_option(config_id="mode", session_id=sid, value="act")
        assert next(o for o in changed.config_options if o.id == "mode").current_value == "act"
        second = await conn.prompt(session_id=sid, prompt=text("go ahead"))
    assert second.stop_reason == "end_turn"
    assert (workspace / "x.txt").is_file()
    assert [u.current_mode_id for u in client.of("current_mode_update")][-1] == "act"


async def test_a_followup_question_ends_the_turn_and_the_next_prompt_answers_it(
    tmp_path: Path, workspace: Path, isolated_home: Path
) -> None:
    script = script_file(tmp_path, ASK, COMPLETE)
    client = RecordingClient()
    async with in_process(client, isolated_home, script) as (conn, _):
        sid = await start(conn, client, workspace)
        await conn.prompt(session_id=sid, prompt=text("change the port"))
        assert "Which port?" in client.message_text() and "- 9090" in client.message_text()
        await conn.prompt(session_id=sid, prompt=text("9090 please"))
    history = TaskStore(isolated_home).open(sid).load_api_history()  # saved when it closed
    answers = [m.text for m in history if m.role == "user" and "9090 please" in m.text]
    assert answers and "<answer>" in answers[0]


async def test_a_picture_in_the_prompt_that_answers_a_question_reaches_the_model(
    tmp_path: Path, workspace: Path, isolated_home: Path
) -> None:
    script = script_file(tmp_path, ASK, COMPLETE)
    client = RecordingClient()
    pixel = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"1" * 16).decode()
    async with in_process(client, isolated_home, script) as (conn, _):
        sid = await start(conn, client, workspace)
        await conn.prompt(session_id=sid, prompt=text("change the port"))
        reply = [acp.text_block("like this"), acp.image_block(pixel, "image/png")]
        await conn.prompt(session_id=sid, prompt=reply)
        history = TaskStore(isolated_home).open(sid).load_api_history()
    answer = next(m for m in history if m.role == "user" and "like this" in m.text)
    assert [(c.media_type, c.data_b64) for c in answer.content if isinstance(c, ImageContent)] == [
        ("image/png", pixel)
    ]


async def test_the_progress_checklist_becomes_a_plan_update(
    tmp_path: Path, workspace: Path, isolated_home: Path
) -> None:
    (workspace / "a.txt").write_text("a\n", encoding="utf-8")
    with_progress = read("a.txt").replace(
        "</read_file>", f"<task_progress>\n{PROGRESS}\n</task_progress>\n</read_file>"
    )
    script = script_file(tmp_path, with_progress, COMPLETE)
    client = RecordingClient()
    async with in_process(client, isolated_home, script) as (conn, _):
        sid = await start(conn, client, workspace)
        await conn.prompt(session_id=sid, prompt=text("go"))
    (plan,) = client.of("plan")
    assert [(e.content, e.status) for e in plan.entries] == [
        ("read the code", "completed"),
        ("change the port", "in_progress"),
        ("run the tests", "pending"),
    ]


async def test_images_resources_and_links_reach_the_model(
    tmp_path: Path, workspace: Path, isolated_home: Path
) -> None:
    (workspace / "linked.txt").write_text("linked file body\n", encoding="utf-8")
    script = script_file(tmp_path, COMPLETE)
    client = RecordingClient()
    pixel = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"0" * 16).decode()
    blocks = [
        acp.text_block("Look at these."),
        acp.image_block(pixel, "image/png"),
        acp.resource_block(
            acp.embedded_text_resource(f"file://{workspace}/buffer.py", "print('unsaved')")
        ),
        acp.resource_link_block("linked.txt", f"file://{workspace}/linked.txt"),
    ]
    async with in_process(client, isolated_home, script) as (conn, _):
        sid = await start(conn, client, workspace)
        await conn.prompt(session_id=sid, prompt=blocks)
        first = TaskStore(isolated_home).open(sid).load_api_history()[0]
    sent = first.text
    assert "Look at these." in sent
    assert "print('unsaved')" in sent and 'path="buffer.py"' in sent
    assert "linked file body" in sent  # the link was read as an @-mention
    assert any(getattr(c, "kind", "") == "image" for c in first.content)


async def test_commands_are_announced_and_slash_plan_switches_mode(
    tmp_path: Path, workspace: Path, isolated_home: Path
) -> None:
    flows = workspace / ".clinerules" / "workflows"
    flows.mkdir(parents=True)
    (flows / "release.md").write_text("1. Bump the version.\n", encoding="utf-8")
    script = script_file(tmp_path, COMPLETE)
    client = RecordingClient()
    async with in_process(client, isolated_home, script) as (conn, agent):
        sid = await start(conn, client, workspace)
        response = await conn.prompt(session_id=sid, prompt=text("/plan"))
        assert response.stop_reason == "end_turn"
        assert agent.sessions[sid].settings.mode == "plan"
        await conn.prompt(session_id=sid, prompt=text("/release quickly"))
        first = TaskStore(isolated_home).open(sid).load_api_history()[0]
    (announced,) = client.of("available_commands_update")
    names = {c.name for c in announced.available_commands}
    assert {"plan", "act", "compact", "release"} <= names
    assert "Bump the version." in first.text and "quickly" in first.text


async def test_auto_approve_preset_and_unknown_options_are_checked(
    tmp_path: Path, workspace: Path, isolated_home: Path
) -> None:
    script = script_file(tmp_path, write("y.txt", "y\n"), COMPLETE)
    client = RecordingClient()
    async with in_process(client, isolated_home, script) as (conn, _):
        sid = await start(conn, client, workspace)
        await conn.set_config_option(config_id="auto_approve", session_id=sid, value="edit")
        with pytest.raises(RequestError) as bad:
            await conn.set_config_option(config_id="model", session_id=sid, value="nope/none")
        assert bad.value.code == -32602
        await conn.prompt(session_id=sid, prompt=text("write y"))
    assert (workspace / "y.txt").is_file()
    assert client.permissions == []  # the preset approved the edit


async def test_without_a_configured_model_sessions_need_authentication(
    workspace: Path, isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pycline.acp.agent import PyclineAgent
    from pycline.app.sessions.session import ConfigOverrides

    agent = PyclineAgent(ConfigOverrides(), isolated_home)
    init = await agent.initialize(protocol_version=1)
    assert any(m.id == "pycline-config" for m in init.auth_methods)
    with pytest.raises(RequestError) as needed:
        await agent.new_session(cwd=str(workspace), mcp_servers=[])
    assert needed.value.code == -32000
    with pytest.raises(RequestError):
        await agent.authenticate(method_id="anthropic-api-key")
    monkeypatch.chdir(workspace)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test-not-used")
    await agent.authenticate(method_id="anthropic-api-key")
    assert agent.flags.provider == "anthropic"


async def test_choosing_a_model_keeps_the_session_and_applies_from_the_next_prompt(
    tmp_path: Path, workspace: Path, isolated_home: Path
) -> None:
    script = script_file(tmp_path, "Hello.\n" + COMPLETE)
    client = RecordingClient()
    async with in_process(client, isolated_home, script) as (conn, agent):
        sid = await start(conn, client, workspace)
        changed = await conn.set_config_option(
            config_id="plan_model", session_id=sid, value="scripted/scripted"
        )
        assert next(o for o in changed.config_options if o.id == "plan_model").current_value == (
            "scripted/scripted"
        )
        response = await conn.prompt(session_id=sid, prompt=text("hi"))
        assert list(agent.sessions) == [sid]
    assert response.stop_reason == "end_turn"
    assert "Hello." in client.message_text()


async def test_the_first_prompt_titles_the_session(
    tmp_path: Path, workspace: Path, isolated_home: Path
) -> None:
    script = script_file(tmp_path, COMPLETE)
    client = RecordingClient()
    async with in_process(client, isolated_home, script) as (conn, _):
        sid = await start(conn, client, workspace)
        await conn.prompt(session_id=sid, prompt=text("Fix   the\nlogin bug"))
    (info,) = client.of("session_info_update")
    assert info.title == "Fix the login bug"


async def test_repeated_model_mistakes_end_the_turn_as_max_turn_requests(
    tmp_path: Path, workspace: Path, isolated_home: Path
) -> None:
    script = script_file(tmp_path, "no tool", "still none", "nothing again", COMPLETE)
    client = RecordingClient()
    async with in_process(client, isolated_home, script) as (conn, _):
        sid = await start(conn, client, workspace)
        stuck = await conn.prompt(session_id=sid, prompt=text("do it"))
        assert stuck.stop_reason == "max_turn_requests"
        assert "3 mistakes in a row" in client.message_text()
        guided = await conn.prompt(session_id=sid, prompt=text("use attempt_completion"))
    assert guided.stop_reason == "end_turn"
    assert "All done." in client.message_text()


async def test_a_model_change_while_a_question_waits_applies_to_the_next_request(
    tmp_path: Path, workspace: Path, isolated_home: Path
) -> None:
    script = script_file(tmp_path, ASK)
    client = RecordingClient()
    async with in_process(client, isolated_home, script) as (conn, _):
        sid = await start(conn, client, workspace)
        await conn.prompt(session_id=sid, prompt=text("change the port"))
        script.write_text(json.dumps(["Switched.\n" + COMPLETE]), encoding="utf-8")
        await conn.set_config_option(config_id="model", session_id=sid, value="scripted/scripted")
        response = await conn.prompt(session_id=sid, prompt=text("9090"))
    assert response.stop_reason == "end_turn"
    assert "Switched." in client.message_text()


async def test_a_focus_chain_progress_event_becomes_a_plan_update(
    tmp_path: Path, workspace: Path, isolated_home: Path
) -> None:
    from pycline.core.focus_chain import progress_event
    from tests.acp.harness import wait_until

    script = script_file(tmp_path, COMPLETE)
    client = RecordingClient()
    async with in_process(client, isolated_home, script) as (conn, agent):
        sid = await start(conn, client, workspace)
        handle = agent.sessions[sid].handle
        assert handle is not None
        handle.say(progress_event(PROGRESS))
        await wait_until(client, lambda: bool(client.of("plan")))
    (plan,) = client.of("plan")
    assert [e.status for e in plan.entries] == ["completed", "in_progress", "pending"]


async def test_the_auto_preset_runs_sandboxed_work_unasked_and_needs_the_sandbox(
    tmp_path: Path, workspace: Path, isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script = script_file(tmp_path, write("y.txt", "y\n"), command("echo ran > ran.txt"), COMPLETE)
    client = RecordingClient()
    monkeypatch.setenv("PYCLINE_SANDBOX", "workspace-write")
    async with in_process(client, isolated_home, script) as (conn, _):
        sid = await start(conn, client, workspace)
        await conn.set_config_option(config_id="auto_approve", session_id=sid, value="auto")
        await conn.prompt(session_id=sid, prompt=text("write y and run"))
    assert (workspace / "y.txt").is_file() and (workspace / "ran.txt").is_file()
    assert client.permissions == []  # neither the edit nor the sandboxed command asked
    monkeypatch.setenv("PYCLINE_SANDBOX", "off")
    async with in_process(RecordingClient(), isolated_home, script) as (conn, _):
        sid = await start(conn, client, workspace)
        with pytest.raises(RequestError):
            await conn.set_config_option(config_id="auto_approve", session_id=sid, value="auto")
