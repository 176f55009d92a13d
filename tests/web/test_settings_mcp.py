"""Settings (model per mode with a server check, write-only keys, auto-approve) and the MCP view."""

from __future__ import annotations

import json
from pathlib import Path

from playwright.sync_api import expect

from tests.fakes.openai_server import FakeOpenAI
from tests.web.conftest import complete, screenshot

SECRET = "sk-test-never-shown-0123456789"


def test_settings_check_the_server_list_its_models_and_never_show_the_key_back(start_ui, new_page):
    ui = start_ui([complete()])
    page = new_page()
    page.goto(ui.url)
    page.get_by_role("button", name="Settings").click()
    settings = page.get_by_role("region", name="Settings")
    with FakeOpenAI(models=("gpt-4o", "local-coder")) as fake:
        settings.get_by_role("combobox", name="act provider").select_option("openai")
        settings.get_by_role("textbox", name="act base URL").fill(fake.base_url)
        settings.get_by_role("textbox", name="act API key").fill(SECRET)
        settings.get_by_role("button", name="Check act server").click()
        expect(settings.get_by_text("OK: 2 models")).to_be_visible()
        assert fake.requests[-1].header("Authorization") == f"Bearer {SECRET}"
    settings.get_by_role("combobox", name="act model").fill("local-coder")
    settings.get_by_role("checkbox", name="Edit project files").check()  # each change is saved
    expect(page.get_by_role("status", name="Notifications")).to_contain_text("Settings saved")
    screenshot(page, "settings")
    settings_file = ui.home / "settings" / "settings.json"
    expect(settings.get_by_role("checkbox", name="Edit project files")).to_be_checked()
    saved = json.loads(settings_file.read_text())
    assert saved["provider"] == "openai"
    assert saved["model"] == "local-coder"
    assert saved["autoApprove"]["editFiles"] is True
    assert SECRET not in json.dumps(saved)
    page.reload()
    page.get_by_role("button", name="Settings").click()
    key = page.get_by_role("region", name="Settings").get_by_role("textbox", name="act API key")
    expect(key).to_have_value("")
    expect(key).to_have_attribute("placeholder", "•••••• (saved; type to replace)")
    assert SECRET not in page.content()


def test_the_mcp_view_trusts_a_project_file_and_lists_its_server(start_ui, new_page, workspace):
    server = (
        Path(__file__).resolve().parents[2]
        / ".ci"
        / "node"
        / "node_modules"
        / ".bin"
        / "mcp-server-everything"
    )
    assert server.exists(), f"the reference MCP server is missing: {server} (see .ci/run)"
    (workspace / ".pycline").mkdir()
    (workspace / ".pycline" / "mcp.json").write_text(
        json.dumps({"mcpServers": {"everything": {"command": str(server), "args": []}}})
    )
    ui = start_ui([complete()])
    page = new_page()
    page.goto(ui.url)
    page.get_by_role("button", name="MCP Servers").click()
    view = page.get_by_role("region", name="MCP Servers")
    expect(view.get_by_text("is not trusted")).to_be_visible()
    view.get_by_role("button", name="Trust project file").click()
    expect(view.get_by_text("everything", exact=True)).to_be_visible(timeout=30_000)
    expect(view.get_by_text("connected")).to_be_visible(timeout=30_000)
    view.get_by_text("Tools (").click()
    # What happens by default: a tool asks, unless set to always allow.
    expect(view.get_by_role("note")).to_contain_text("asks before it runs")
    approve = view.get_by_role("checkbox", name="Always allow echo")
    expect(approve).not_to_be_checked()
    approve.click()  # the box shows what the server saved, once it answers
    expect(view.get_by_role("checkbox", name="Always allow echo")).to_be_checked(timeout=30_000)
    screenshot(page, "mcp")
    saved = json.loads((ui.home / "settings" / "settings.json").read_text())
    assert saved["mcpAutoApprove"] == {"everything": ["echo"]}
    view.get_by_role("switch", name="Enable everything").uncheck()
    expect(view.get_by_text("disabled")).to_be_visible(timeout=30_000)
    page.on("dialog", lambda d: d.accept())
    view.get_by_role("button", name="Delete everything").click()
    expect(view.get_by_text("No MCP servers configured.")).to_be_visible(timeout=30_000)
    assert "everything" not in (workspace / ".pycline" / "mcp.json").read_text()


def test_settings_list_the_hooks_and_trust_the_projects(start_ui, new_page, workspace):
    from pycline.app.settings.hook_trust import HookTrust

    hooks = workspace / ".clinerules" / "hooks"
    hooks.mkdir(parents=True)
    hook = hooks / "TaskStart"
    hook.write_text("#!/bin/sh\necho '{}'\n")
    hook.chmod(0o755)
    ui = start_ui([complete()])
    page = new_page()
    page.goto(ui.url)
    page.get_by_role("button", name="Settings").click()
    state = page.get_by_role("list", name="Hooks").get_by_label("State of project hook TaskStart")
    expect(state).to_have_text("not trusted")
    page.get_by_role("button", name="Trust project hooks").click()
    expect(state).to_have_text("on")
    expect(page.get_by_role("button", name="Trust project hooks")).to_be_hidden()
    assert HookTrust(ui.home).is_trusted(hook, hook.read_bytes())


def test_any_setting_is_changed_in_the_settings_file_and_a_bad_value_is_refused(start_ui, new_page):
    ui = start_ui([complete()])
    page = new_page()
    page.goto(ui.url)
    page.get_by_role("button", name="Settings").click()
    settings = page.get_by_role("region", name="Settings")
    text = settings.get_by_role("textbox", name="Settings JSON")
    text.fill(json.dumps({"autoApprove": {"maxRequests": "many"}}))
    settings.get_by_role("button", name="Apply settings file").click()
    expect(page.get_by_role("status", name="Notifications")).to_contain_text("maxRequests")
    path = ui.home / "settings" / "settings.json"
    assert not path.exists() or "many" not in path.read_text()
    settings.get_by_role("combobox", name="Settings file").select_option("project")
    expect(text).to_have_value("{}")
    text.fill(json.dumps({"autoApprove": {"readFiles": False}}))
    settings.get_by_role("button", name="Apply settings file").click()
    expect(page.get_by_role("status", name="Notifications")).to_contain_text("saved")
    saved = json.loads((ui.workspace / ".pycline" / "settings.json").read_text())
    assert saved == {"autoApprove": {"readFiles": False}}
    settings.get_by_text("Values in force").click()
    expect(settings.get_by_label("Values in force")).to_contain_text('"readFiles": false')


def test_with_use_mcp_on_the_mcp_screen_shows_every_tool_running_unasked(
    start_ui, new_page, isolated_home
):
    server = (
        Path(__file__).resolve().parents[2] / ".ci/node/node_modules/.bin/mcp-server-everything"
    )
    settings = isolated_home / "settings"
    settings.mkdir(parents=True, exist_ok=True)
    (settings / "cline_mcp_settings.json").write_text(
        json.dumps({"mcpServers": {"everything": {"command": str(server)}}})
    )
    (settings / "settings.json").write_text(json.dumps({"autoApprove": {"useMcp": True}}))
    ui = start_ui([complete()])
    page = new_page()
    page.goto(ui.url)
    page.get_by_role("button", name="MCP Servers").click()
    view = page.get_by_role("region", name="MCP Servers")
    expect(view.get_by_text("connected")).to_be_visible(timeout=30_000)
    expect(view.get_by_role("note")).to_contain_text("Every MCP tool runs without asking")
    view.get_by_text("Tools (").click()
    box = view.get_by_role("checkbox", name="Always allow echo")
    expect(box).to_be_checked()
    expect(box).to_be_disabled()
