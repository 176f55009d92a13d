"""Edits checked by real language servers: only the errors an edit introduced are reported."""

from __future__ import annotations

import os
import signal
from pathlib import Path

from pycline.core.services import TaskServices
from pycline.core.user_input import expand
from pycline.tools.edit import ReplaceInFileTool, WriteToFileTool
from pycline.tools.services import ToolServices
from pycline.workspace.diagnostics.registry import LanguageServers
from tests.editing.helpers import block
from tests.editing.tooling import call, make_context
from tests.workspace.diagnostics.helpers import python_server, typescript_server

REPLACE = ReplaceInFileTool()
# Generous: the servers start cold on a busy CI machine. Every wait ends on the server's answer.
BUDGET = 300.0

PY = (
    "def total(prices: list[float]) -> float:\n"
    "    return sum(prices)\n\n\n"
    "ORDER = total([1.0, 2.5])\n"
    'NAME: str = "shop"\n'
)


async def _edit(servers: LanguageServers, workspace: Path, path: str, search: str, new: str) -> str:
    ctx = make_context(workspace, services=ToolServices(language_servers=servers))
    result = await REPLACE.run(call("replace_in_file", path=path, diff=block(search, new)), ctx)
    assert not result.is_error, result.text
    return result.text


def _reported(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("- [")]


async def test_python_type_errors_are_reported_once_fixed_silently_and_after_a_crash(
    workspace: Path,
) -> None:
    (workspace / "shop.py").write_text(PY, encoding="utf-8")
    servers = LanguageServers(workspace, commands={"python": python_server()}, budget=BUDGET)
    try:
        broken = await _edit(servers, workspace, "shop.py", 'NAME: str = "shop"', "NAME: str = 42")
        reported = _reported(broken)
        assert len(reported) == 1, broken
        assert "Line 6" in reported[0] and '"Literal[42]"' in reported[0] and '"str"' in reported[0]

        fixed = await _edit(servers, workspace, "shop.py", "NAME: str = 42", 'NAME: str = "42"')
        assert _reported(fixed) == []
        assert "(problems)" not in fixed and "New problems" not in fixed

        pid = servers.running()["python"]
        os.killpg(pid, signal.SIGKILL)
        again = await _edit(
            servers, workspace, "shop.py", "ORDER = total([1.0, 2.5])", 'ORDER = total("1.0")'
        )
        reported = _reported(again)
        assert len(reported) == 1 and "Line 5" in reported[0], (again, servers.last_error("python"))
        assert servers.running()["python"] != pid
    finally:
        await servers.close()
    assert servers.running() == {}


TS = (
    "export function total(prices: number[]): number {\n"
    "  return prices.reduce((a, b) => a + b, 0);\n"
    "}\n\n"
    "export const order = total([1, 2.5]);\n"
    'export const shopName: string = "shop";\n'
)


async def test_typescript_type_errors_are_reported_and_a_fix_reports_nothing_new(
    workspace: Path,
) -> None:
    (workspace / "shop.ts").write_text(TS, encoding="utf-8")
    servers = LanguageServers(
        workspace, commands={"typescript": typescript_server()}, budget=BUDGET
    )
    try:
        broken = await _edit(
            servers,
            workspace,
            "shop.ts",
            "export const order = total([1, 2.5]);",
            'export const order = total(["1", 2.5]);',
        )
        reported = _reported(broken)
        assert len(reported) == 1, broken
        assert "Line 5" in reported[0]
        assert "Type 'string' is not assignable to type 'number'" in reported[0]

        fixed = await _edit(
            servers,
            workspace,
            "shop.ts",
            'export const order = total(["1", 2.5]);',
            "export const order = total([1, 2.5]);",
        )
        assert _reported(fixed) == []
        assert "shop.ts" not in servers.workspace_problems()
    finally:
        await servers.close()


async def test_a_new_file_reports_its_errors_and_problems_mentions_them(workspace: Path) -> None:
    servers = LanguageServers(workspace, commands={"python": python_server()}, budget=BUDGET)
    try:
        ctx = make_context(workspace, services=ToolServices(language_servers=servers))
        result = await WriteToFileTool().run(
            call("write_to_file", path="new.py", content="count: int = 'many'\n"), ctx
        )
        assert len(_reported(result.text)) == 1, result.text
        expanded = await expand(
            "Fix @problems", workspace, TaskServices(tools=ToolServices(language_servers=servers))
        )
        diagnostics = expanded.split("<workspace_diagnostics>")[1]
        assert "new.py" in diagnostics and "Line 1" in diagnostics and '"int"' in diagnostics
    finally:
        await servers.close()
