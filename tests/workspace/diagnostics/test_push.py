"""Pushed diagnostics arrive in rounds: the check waits for the server to go quiet."""

from __future__ import annotations

import sys
from pathlib import Path

from pycline.workspace.diagnostics.registry import LanguageServers

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
