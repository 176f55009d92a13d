"""Workflows: one listing decides what every front end offers and what the core expands."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from pycline.acp.options import COMMANDS, available_commands
from pycline.app.services import slash_commands as slash
from pycline.core.commands import expand
from pycline.web.usecases import workflow_menu
from pycline.workspace.workflows import Workflow, enabled_workflows


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _core(found: list[Workflow]) -> list[str]:
    names = ["release", "triage", "ship", "off", "gone"]
    return [n for n in names if expand(f"/{n}", found).command is not None]


LISTERS: dict[str, Callable[[list[Workflow]], list[str]]] = {
    "terminal": lambda found: [c.name for c in slash.workflows(found)],
    "acp": lambda found: [c.name for c in available_commands(found) if c.name not in COMMANDS],
    "web": lambda found: [m["name"] for m in workflow_menu(found)],
    "core": _core,
}


@pytest.mark.parametrize("front_end", sorted(LISTERS))
def test_every_front_end_offers_the_same_enabled_workflows_and_no_disabled_one(
    tmp_path: Path, front_end: str
) -> None:
    flows, home_flows = tmp_path / "ws" / ".clinerules" / "workflows", tmp_path / "global"
    _write(flows / "release.md", "local release")
    _write(flows / "ops" / "triage.md", "look first")
    _write(flows / "off.md", "switched off")
    _write(flows / ".hidden.md", "never")
    _write(home_flows / "release.md", "global release")
    _write(home_flows / "ship.md", "ship it")
    _write(home_flows / "gone.md", "switched off too")
    found = enabled_workflows(
        tmp_path / "ws",
        home_flows,
        toggles={str(flows / "off.md"): False},
        global_toggles={"gone.md": False},
    )
    assert sorted(LISTERS[front_end](found)) == ["release", "ship", "triage"]
    assert "local release" in expand("/release", found).text


def test_a_workflow_linked_out_of_its_folder_is_not_read(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("private key", encoding="utf-8")
    flows = tmp_path / "ws" / ".clinerules" / "workflows"
    flows.mkdir(parents=True)
    (flows / "leak.md").symlink_to(secret)
    found = enabled_workflows(tmp_path / "ws", None)
    out = expand("/leak now", found)
    assert out.command is None and "private key" not in out.text
    assert found[0].description == "workflow"
