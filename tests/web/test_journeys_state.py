"""Web journeys about state that must come from the task and the settings, not from what the
page happened to see: History while a result waits for its answer (and from the terminal), the
Plan/Act switch after a reload, a restore that would delete files, MCP servers added from a
terminal, and a question answered elsewhere."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from playwright.sync_api import expect

from tests.web.conftest import complete, followup, write_file
from tests.web.test_chat import send_task


def _pycline(
    ui, *args: str, stdin: str = "", env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """The terminal's `pycline` on the same data and folder as the page's server."""
    return subprocess.run(
        [sys.executable, "-m", "pycline", *args],
        cwd=ui.workspace,
        env={**os.environ, "PYCLINE_HOME": str(ui.home), "NO_COLOR": "1", **(env or {})},
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
    )


def _log(page):
    return page.get_by_role("log", name="Messages")


def test_a_web_task_at_its_result_is_completed_with_its_tokens_in_history_and_the_terminal(
    start_ui, new_page
):
    ui = start_ui([write_file("a.txt", "x\n"), complete("Wrote a.txt.")])
    page = new_page()
    page.goto(ui.url)
    send_task(page, "Write a.txt")
    page.get_by_role("button", name="Save", exact=True).click()
    expect(_log(page).get_by_text("Wrote a.txt.").first).to_be_visible()
    # Nobody has clicked "Start New Task": the result shows, and the task is done.
    page.get_by_role("button", name="History").click()
    row = page.get_by_role("listitem").filter(has_text="Write a.txt")
    expect(row.get_by_text("completed", exact=True)).to_be_visible()
    expect(row.get_by_text("running", exact=True)).to_have_count(0)
    expect(row.get_by_text("Tokens ↑0 ↓0")).to_have_count(0)
    listed = _pycline(ui, "history")
    line = next(x for x in listed.stdout.splitlines() if "Write a.txt" in x)
    assert " completed " in line and " running " not in line, listed.stdout
    (record,) = ui.api_history()
    assert record["status"] == "completed" and record["tokens_in"] > 0


PLAN = (
    "<plan_mode_respond>\n<response>1. Write the file\n2. Check it</response>\n</plan_mode_respond>"
)


def test_after_a_reload_a_task_waiting_at_its_plan_shows_the_switch_on_plan(start_ui, new_page):
    ui = start_ui([PLAN, complete("Acted.")])
    page = new_page()
    page.goto(ui.url)
    mode = page.get_by_role("radiogroup", name="Mode")
    mode.get_by_role("radio", name="Plan").click()
    send_task(page, "Plan the change")
    expect(
        page.get_by_role("group", name="Actions").get_by_role("button", name="Act")
    ).to_be_visible()
    page.reload()
    expect(_log(page).get_by_text("Plan the change", exact=True)).to_be_visible()
    expect(mode.get_by_role("radio", name="Plan")).to_have_attribute("aria-checked", "true")
    expect(mode.get_by_role("radio", name="Act")).to_have_attribute("aria-checked", "false")
    # The plan's Act still moves it, after the reload as before.
    page.get_by_role("group", name="Actions").get_by_role("button", name="Act").click()
    expect(mode.get_by_role("radio", name="Act")).to_have_attribute("aria-checked", "true")
    expect(_log(page).get_by_text("Acted.").first).to_be_visible()


def test_restoring_files_that_deletes_some_lists_them_and_asks_first(start_ui, new_page):
    ui = start_ui([write_file("made.txt", "by the task\n"), complete("Made it.")])
    page = new_page()
    page.goto(ui.url)
    send_task(page, "Make a file")
    page.get_by_role("button", name="Save", exact=True).click()
    expect(_log(page).get_by_text("Made it.").first).to_be_visible()
    (ui.workspace / ".clinerules").write_text("written by hand\n", encoding="utf-8")
    restore = _log(page).get_by_role("button", name="Restore").first
    restore.click()
    page.get_by_role("menuitem", name="Restore Files Only").click()
    dialog = page.get_by_role("dialog", name="Restoring deletes 2 files")
    listed = dialog.get_by_role("list", name="Files to delete")
    expect(listed.get_by_role("listitem")).to_have_text([".clinerules", "made.txt"])
    dialog.get_by_role("button", name="Cancel").click()
    expect(dialog).to_have_count(0)
    assert (ui.workspace / ".clinerules").is_file() and (ui.workspace / "made.txt").is_file()
    restore.click()
    page.get_by_role("menuitem", name="Restore Files Only").click()
    page.get_by_role("button", name="Restore and delete 2 files").click()
    toast = page.get_by_role("status", name="Notifications")
    expect(toast).to_contain_text("0 files written, 2 deleted. The files before it are checkpoint")
    assert not (ui.workspace / ".clinerules").exists() and not (ui.workspace / "made.txt").exists()
    # The checkpoint the toast names brings them back.
    undo = re.search(r"checkpoint (\w{8})", toast.inner_text())
    assert undo is not None
    (record,) = ui.api_history()
    back = _pycline(ui, "restore", record["id"], undo.group(1), "--workspace")
    assert back.returncode == 0, back.stderr
    assert (ui.workspace / ".clinerules").read_text(encoding="utf-8") == "written by hand\n"


def test_a_question_answered_from_another_terminal_says_so_on_the_page(
    start_ui, new_page, tmp_path
):
    runtime = tempfile.mkdtemp(prefix="rt", dir="/tmp")  # socket paths stay short
    try:
        ui = start_ui([followup("Which port?", "8000", "8080"), complete("Set.")],
                      env={"XDG_RUNTIME_DIR": runtime})  # fmt: skip
        page = new_page()
        page.goto(ui.url)
        send_task(page, "Set the port")
        expect(page.get_by_role("button", name="8080")).to_be_visible()
        env = {"XDG_RUNTIME_DIR": runtime}
        (live,) = json.loads(_pycline(ui, "tasks", "--json", env=env).stdout)
        attached = _pycline(ui, "attach", live["id"], stdin="2\n", env=env)
        assert "Which port?" in attached.stdout, attached.stderr
        expect(_log(page).get_by_text("Answered in pycline attach.")).to_be_visible()
        expect(_log(page).get_by_text("Set.").first).to_be_visible()
    finally:
        shutil.rmtree(runtime, ignore_errors=True)


EVERYTHING = (
    Path(__file__).resolve().parents[2] / ".ci/node/node_modules/.bin/mcp-server-everything"
)


def _echo(message: str) -> str:
    arguments = json.dumps({"message": message})
    return (
        "<use_mcp_tool>\n<server_name>everything</server_name>\n<tool_name>echo</tool_name>\n"
        f"<arguments>{arguments}</arguments>\n</use_mcp_tool>"
    )


def test_mcp_servers_added_from_a_terminal_are_listed_and_used_and_one_connecting_hides_none(
    start_ui, new_page
):
    assert EVERYTHING.exists(), f"the reference MCP server is missing: {EVERYTHING} (see .ci/run)"
    ui = start_ui([_echo("hello from the page"), complete("Echoed.")])  # no MCP file yet
    page = new_page()
    page.goto(ui.url)
    page.get_by_role("button", name="MCP Servers").click()
    view = page.get_by_role("region", name="MCP Servers")
    expect(view.get_by_text("No MCP servers configured.")).to_be_visible()
    # Added in a terminal while the screen is open: it appears without a reload.
    slow = _pycline(ui, "mcp", "add", "slow", "--", "sleep", "600")  # never answers
    assert slow.returncode == 0, slow.stderr
    expect(view.get_by_text("slow", exact=True)).to_be_visible()
    expect(view.get_by_text(re.compile("connecting"))).to_be_visible()
    # Added in the form while "slow" still connects: listed at once, and it connects.
    view.get_by_role("textbox", name="Server name").fill("everything")
    view.get_by_role("textbox", name="Command or URL").fill(str(EVERYTHING))
    view.get_by_role("button", name="Add").click()
    expect(view.get_by_text("everything", exact=True)).to_be_visible()
    expect(view.get_by_text("connected", exact=True)).to_be_visible(timeout=60_000)
    # A task started now has the MCP tools.
    page.get_by_role("button", name="Done").click()
    send_task(page, "Echo through MCP")
    page.get_by_role("button", name="Approve", exact=True).click()
    expect(_log(page).get_by_text("Echoed.").first).to_be_visible()
    (record,) = ui.api_history()
    assert "Echo: hello from the page" in ui.api_messages(record["id"])
