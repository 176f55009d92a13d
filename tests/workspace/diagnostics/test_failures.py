"""A missing, crashing or hung language server never holds up an edit."""

from __future__ import annotations

import os
import time
from pathlib import Path

from pycline.tools.edit import ReplaceInFileTool
from pycline.tools.services import ToolServices
from pycline.workspace.diagnostics.registry import LanguageServers
from tests.editing.helpers import block
from tests.editing.tooling import call, make_context
from tests.workspace.diagnostics.helpers import CRASHING_SERVER, HUNG_SERVER, fake_server

SOURCE = "x: int = 1\n"
BUDGET = 0.5


async def _edit(
    servers: LanguageServers, workspace: Path, new: str = "x: int = 2", source: str = SOURCE
) -> str:
    (workspace / "a.py").write_text(source, encoding="utf-8")
    ctx = make_context(workspace, services=ToolServices(language_servers=servers))
    result = await ReplaceInFileTool().run(
        call("replace_in_file", path="a.py", diff=block("x: int = 1", new)), ctx
    )
    assert not result.is_error, result.text
    assert (workspace / "a.py").read_text(encoding="utf-8") == source.replace("x: int = 1", new)
    return result.text


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


async def test_a_hung_server_times_out_and_the_edit_is_saved_and_syntax_checked(
    workspace: Path, tmp_path: Path
) -> None:
    servers = LanguageServers(
        workspace, commands={"python": fake_server(tmp_path, "hung", HUNG_SERVER)}, budget=BUDGET
    )
    try:
        started = time.monotonic()
        # A file that does not parse already (an edit that breaks a clean one is refused).
        text = await _edit(servers, workspace, "x: int = (", source=SOURCE + "def f(:\n")
        # The check before and the one after the save each give up at the budget.
        assert time.monotonic() - started < 10 * BUDGET
        # The tree-sitter check still ran; the server contributed nothing.
        reported = [line for line in text.splitlines() if line.startswith("- [")]
        assert reported and all(line.startswith("- [syntax]") for line in reported), text
        assert await servers.problems(workspace / "a.py", SOURCE) is None
    finally:
        await servers.close()


async def test_a_crashing_server_is_given_up_on_and_says_why(
    workspace: Path, tmp_path: Path
) -> None:
    servers = LanguageServers(
        workspace,
        commands={"python": fake_server(tmp_path, "crash", CRASHING_SERVER)},
        budget=30.0,
    )
    try:
        await _edit(servers, workspace)
        assert "no licence" in servers.last_error("python")
        for _ in range(3):  # no endless restarts: after a few failures it is left alone
            assert await servers.problems(workspace / "a.py", SOURCE) is None
        assert servers.running() == {}
    finally:
        await servers.close()


async def test_a_missing_server_is_no_error(workspace: Path) -> None:
    servers = LanguageServers(workspace, commands={"python": ["no-such-language-server"]})
    await _edit(servers, workspace)
    assert await servers.problems(workspace / "a.py", SOURCE) is None
    await servers.close()


async def test_closing_kills_a_server_that_never_finished_starting(
    workspace: Path, tmp_path: Path
) -> None:
    pid_file = tmp_path / "pid"
    source = f"import os, sys\nopen({str(pid_file)!r}, 'w').write(str(os.getpid()))\n" + HUNG_SERVER
    servers = LanguageServers(
        workspace, commands={"python": fake_server(tmp_path, "hung", source)}, budget=BUDGET
    )
    await _edit(servers, workspace)
    pid = int(pid_file.read_text())
    await servers.close()
    assert _gone(pid)
