"""Servers start in the background for the languages a workspace holds; an edit made while one
is still starting does not wait for it, and what it finds reaches the model with a later result."""

from __future__ import annotations

from pathlib import Path

from pycline.tools.edit import ReplaceInFileTool
from pycline.tools.services import ToolServices
from pycline.workspace.diagnostics.registry import LanguageServers, suffixes_present
from tests.editing.helpers import block
from tests.editing.tooling import call, make_context
from tests.workspace.diagnostics.helpers import python_server

BUDGET = 60.0  # generous: every wait here ends on the server's answer


def test_the_scan_finds_the_languages_present_but_not_in_hidden_or_dependency_folders(
    workspace: Path,
) -> None:
    (workspace / "src").mkdir()
    (workspace / "src" / "app.PY").write_text("", encoding="utf-8")
    for hidden in (".venv", "node_modules"):
        (workspace / hidden).mkdir()
        (workspace / hidden / "lib.ts").write_text("", encoding="utf-8")
    assert suffixes_present(workspace) == {".py"}


async def test_a_workspace_without_python_starts_no_python_server(workspace: Path) -> None:
    (workspace / "notes.md").write_text("# notes\n", encoding="utf-8")
    servers = LanguageServers(workspace, commands={"python": python_server()}, budget=BUDGET)
    try:
        servers.warm()
        await servers.warmed()
        assert servers.running() == {}
    finally:
        await servers.close()


async def test_an_edit_during_the_start_does_not_wait_and_its_problems_come_later(
    workspace: Path,
) -> None:
    (workspace / "shop.py").write_text('NAME: str = "shop"\n', encoding="utf-8")
    servers = LanguageServers(
        workspace, commands={"python": python_server()}, budget=BUDGET, cold_wait=0.0
    )
    try:
        servers.warm()
        assert servers.wait_for(workspace / "shop.py") == 0.0  # not started yet
        ctx = make_context(workspace, services=ToolServices(language_servers=servers))
        diff = block('NAME: str = "shop"', "NAME: str = 42")
        result = await ReplaceInFileTool().run(
            call("replace_in_file", path="shop.py", diff=diff), ctx
        )
        assert not result.is_error and "New problems" not in result.text
        await servers.warmed()
        assert "python" in servers.running()
        await servers.late.settled()
        assert servers.wait_for(workspace / "shop.py") == BUDGET  # it has answered once
        told = servers.late.take()
        assert "New problems in shop.py since your last edit" in told
        assert '"Literal[42]"' in told and "Line 1" in told
    finally:
        await servers.close()
    assert servers.running() == {}
