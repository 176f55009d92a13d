"""Settings list every rules file and workflow with an on/off box; a box switched off is saved in
the user's home and the workflow leaves the / menu."""

from __future__ import annotations

from playwright.sync_api import expect

from pycline.app.settings.toggles import enabled_workflows, rule_toggles
from tests.web.conftest import complete


def test_settings_switch_a_rules_file_and_a_workflow_off(start_ui, new_page, workspace):
    (workspace / ".clinerules" / "workflows").mkdir(parents=True)
    (workspace / ".clinerules" / "style.md").write_text("Use tabs.", encoding="utf-8")
    (workspace / ".clinerules" / "workflows" / "release.md").write_text("Bump", encoding="utf-8")
    ui = start_ui([complete()])
    page = new_page()
    page.goto(ui.url)
    page.get_by_role("button", name="Settings").click()
    listed = page.get_by_role("list", name="Rules and workflows")
    rule = listed.get_by_role("checkbox", name="Project rule .clinerules/style.md")
    flow = listed.get_by_role("checkbox", name="Project workflow release.md")
    expect(rule).to_be_checked()
    expect(flow).to_be_checked()
    flow.uncheck()
    rule.uncheck()
    expect(rule).not_to_be_checked()
    expect(flow).not_to_be_checked()
    page.reload()
    page.get_by_role("button", name="Settings").click()
    expect(
        listed.get_by_role("checkbox", name="Project rule .clinerules/style.md")
    ).not_to_be_checked()
    assert enabled_workflows(ui.home, workspace) == []
    assert [t.on for t in rule_toggles(ui.home, workspace)] == [False]
    assert page.request.get(f"{ui.url.rstrip('/')}/api/commands").ok
