"""No workspace tool reveals the content of a file hidden by `.clineignore`."""

from __future__ import annotations

from pathlib import Path

import pytest

from pycline.errors import ToolError
from pycline.tools.base import ToolCall
from pycline.tools.definitions import ListCodeDefinitionNamesTool
from pycline.tools.listing import ListFilesTool
from pycline.tools.search import SearchFilesTool
from pycline.workspace.ignore import IgnoreRules
from pycline.workspace.mentions import expand_mentions

from .helpers import make_ctx, write

SECRET = "SECRET_MARKER_7f3a"


@pytest.fixture
def hidden_workspace(workspace: Path) -> Path:
    write(workspace, ".clineignore", "!include .privatefiles\n")
    write(workspace, ".privatefiles", "credentials.py\nvault/\n")
    write(workspace, "credentials.py", f"def {SECRET}():\n    return '{SECRET}'\n")
    write(workspace, "vault/keys.py", f"class {SECRET}:\n    pass\n")
    write(workspace, "app.py", "def run():\n    pass\n")
    return workspace


async def test_no_tool_reveals_hidden_content(hidden_workspace: Path) -> None:
    root = hidden_workspace
    access = IgnoreRules.load(root, command_permissions="")
    ctx, rec = make_ctx(root, access=access)
    outputs = [
        (await ListFilesTool().run(ToolCall("list_files", {"path": ".", "recursive": "true"}), ctx)).text,
        (await SearchFilesTool().run(ToolCall("search_files", {"path": ".", "regex": SECRET}), ctx)).text,
        (await SearchFilesTool().run(ToolCall("search_files", {"path": ".", "regex": "def|class"}), ctx)).text,
        (await ListCodeDefinitionNamesTool().run(ToolCall("list_code_definition_names", {"path": "."}), ctx)).text,
        await expand_mentions("@/credentials.py @/vault/keys.py @/vault/ @/", root, ignore=access),
    ]  # fmt: skip
    for text in outputs:
        assert SECRET not in text
    assert "def run():" in outputs[3]
    assert all(SECRET not in q.preview for q, _, _ in rec.questions)
    for command in ("cat credentials.py", "grep -r x vault/keys.py", "tail vault/*.py"):
        assert access.command_refusal(command) is not None


@pytest.mark.parametrize(
    ("tool", "params"),
    [
        (SearchFilesTool(), {"path": "vault", "regex": "."}),
        (ListFilesTool(), {"path": "vault"}),
        (ListCodeDefinitionNamesTool(), {"path": "vault"}),
        (ListCodeDefinitionNamesTool(), {"path": "credentials.py"}),
    ],
)
async def test_hidden_paths_are_refused_outright(
    hidden_workspace: Path, tool: object, params: dict[str, str]
) -> None:
    ctx, _ = make_ctx(hidden_workspace, access=IgnoreRules.load(hidden_workspace))
    with pytest.raises(ToolError, match=r"\.clineignore"):
        await tool.run(ToolCall("x", params), ctx)  # type: ignore[attr-defined]
