"""Settings list every rules file and workflow with an on/off box; a box switched off is saved in
the user's home and the workflow leaves the / menu."""

from __future__ import annotations

from playwright.sync_api import expect

from pycline.app.settings.toggles import enabled_workflows, rule_toggles
from tests.web.conftest import complete


def _rule_and_workflow(workspace):
    (workspace / ".clinerules" / "workflows").mkdir(parents=True)
    (workspace / ".clinerules" / "style.md").write_text("Use tabs.", encoding="utf-8")
    (workspace / ".clinerules" / "workflows" / "release.md").write_text("Bump", encoding="utf-8")


def _settings(page, url):
    """Open the page's Settings; return the rule's and the workflow's boxes."""
    page.goto(url)
    page.get_by_role("button", name="Settings").click()
    listed = page.get_by_role("list", name="Rules and workflows")
    rule = listed.get_by_role("checkbox", name="Project rule .clinerules/style.md")
    return rule, listed.get_by_role("checkbox", name="Project workflow release.md")


def test_settings_switch_a_rules_file_and_a_workflow_off(start_ui, new_page, workspace):
    _rule_and_workflow(workspace)
    ui = start_ui([complete()])
    page = new_page()
    rule, flow = _settings(page, ui.url)
    expect(rule).to_be_checked()
    expect(flow).to_be_checked()
    flow.uncheck()
    rule.uncheck()
    expect(rule).not_to_be_checked()
    expect(flow).not_to_be_checked()
    page.reload()
    page.get_by_role("button", name="Settings").click()
    expect(rule).not_to_be_checked()  # the locator finds the box anew on the reloaded page
    assert enabled_workflows(ui.home, workspace) == []
    assert [t.on for t in rule_toggles(ui.home, workspace)] == [False]
    assert page.request.get(f"{ui.url.rstrip('/')}/api/commands").ok


def test_a_list_read_before_a_later_switch_does_not_put_the_box_back(start_ui, new_page, workspace):
    # The race CI met: the list read after the first box's change answers after the second box was
    # switched, with that box still on. Shown, it would tick the box the user just cleared.
    _rule_and_workflow(workspace)
    ui = start_ui([complete()])
    page = new_page()
    held = []

    def hold_reads(route):
        if route.request.method == "GET" and armed:
            held.append((route, route.fetch()))  # read now, answered later: a stale list
        else:
            route.fallback()

    armed = False
    page.route("**/api/toggles", hold_reads)
    rule, flow = _settings(page, ui.url)
    expect(rule).to_be_checked()
    armed = True

    def wait_held(n):
        for _ in range(10_000):  # each call lets Playwright hand a held read to hold_reads
            if len(held) >= n:
                return
            page.evaluate("0")
        raise AssertionError(f"{len(held)} reads held, {n} wanted")

    flow.uncheck()
    wait_held(1)
    rule.uncheck()
    wait_held(2)  # the read after the rule's change, held too: only the stale one is answered
    (stale, answer), (fresh, latest) = held
    assert {row["kind"]: row["on"] for row in answer.json()} == {"rules": True, "workflows": False}
    with page.expect_request_finished(lambda r: r.method == "GET"):
        stale.fulfill(response=answer)
    page.evaluate(
        "() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))"
    )
    expect(rule).not_to_be_checked()
    fresh.fulfill(response=latest)
    expect(rule).not_to_be_checked()
    expect(flow).not_to_be_checked()
    assert [t.on for t in rule_toggles(ui.home, workspace)] == [False]
