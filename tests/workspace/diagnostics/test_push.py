"""Pushed diagnostics arrive in rounds: the check waits for the server to go quiet."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from pycline.core.services import TaskServices
from pycline.core.user_input import expand
from pycline.tools.services import ToolServices
from pycline.workspace.diagnostics.registry import LanguageServers
from pycline.workspace.ignore import IgnoreRules

FAKE = Path(__file__).resolve().parents[2] / "fakes" / "lsp_server.py"


async def test_errors_published_in_a_later_round_are_still_caught(workspace: Path) -> None:
    path = workspace / "a.py"
    servers = LanguageServers(
        workspace, commands={"python": [sys.executable, str(FAKE)]}, budget=30.0, settle=1.0
    )
    try:
        assert await servers.problems(path, "fine\n") == []
        found = await servers.problems(path, "fine\nBAD\n")
        assert found is not None and [(p.source, p.line) for p in found] == [("fake", 2)]
        # The same text again is answered from what the server said last time.
        assert await servers.problems(path, "fine\nBAD\n") == found
        assert await servers.problems(path, "fine\n") == []
        assert "a.py" not in servers.workspace_problems()
    finally:
        await servers.close()
    assert servers.running() == {}


async def test_a_slow_server_s_later_round_is_waited_for_as_long_as_its_first(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Each round comes well after the default quiet time (0.3 s): a loaded machine, a cold start.
    monkeypatch.setenv("FAKE_LSP_PACE", "0.8")
    path = workspace / "a.py"
    servers = LanguageServers(
        workspace, commands={"python": [sys.executable, str(FAKE)]}, budget=30.0
    )
    try:
        assert await servers.problems(path, "fine\n") == []
        found = await servers.problems(path, "fine\nBAD\n")
    finally:
        await servers.close()
    assert found is not None and [(p.source, p.line) for p in found] == [("fake", 2)]


async def test_problems_mention_checks_the_files_changed_in_the_working_tree(
    workspace: Path,
) -> None:
    subprocess.run(["git", "init", "-q"], cwd=workspace, check=True)
    (workspace / "broken.py").write_text("ok = 1\nBAD = 2\n", encoding="utf-8")
    (workspace / "notes.md").write_text("BAD but no server for it\n", encoding="utf-8")
    (workspace / ".clineignore").write_text("secret.py\n", encoding="utf-8")
    (workspace / "secret.py").write_text("BAD\n", encoding="utf-8")
    servers = LanguageServers(
        workspace, commands={"python": [sys.executable, str(FAKE)]}, budget=30.0, settle=1.0
    )
    services = TaskServices(
        access=IgnoreRules.load(workspace), tools=ToolServices(language_servers=servers)
    )
    try:
        expanded = await expand("Please fix @problems", workspace, services)
    finally:
        await servers.close()
    diagnostics = expanded.split("<workspace_diagnostics>")[1]
    assert "broken.py\n- [Error] Line 2: bad thing on line 2" in diagnostics
    assert "notes.md" not in diagnostics and "secret.py" not in diagnostics
