"""Scenarios other agents' edit engines are tested on (bench/edits/peers.py): each lands as
intended, or is refused where refusing is pycline's choice; and the tab case through
`pycline run`."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from pycline.editing.search_replace import SearchReplaceError, apply_search_replace
from tests.cli.task_cli import COMPLETE, pycline

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench" / "edits"))
from peers import SCENARIOS, Scenario


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.id)
def test_peer_scenario(scenario: Scenario) -> None:
    if scenario.group == "refused on purpose":
        with pytest.raises(SearchReplaceError):
            apply_search_replace(scenario.original, scenario.diff)
        return
    assert apply_search_replace(scenario.original, scenario.diff).content == scenario.intended


def test_spaces_written_for_a_tab_file_nest_one_tab_per_level_through_pycline_run(
    isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    [scenario] = [s for s in SCENARIOS if s.id == "tabs-8sp-per-level-add-nested"]
    (workspace / "handler.go").write_text(scenario.original, encoding="utf-8")
    edit = (
        "<replace_in_file>\n<path>handler.go</path>\n<diff>\n"
        f"{scenario.diff}\n</diff>\n</replace_in_file>"
    )
    script = tmp_path / "script.json"
    script.write_text(json.dumps([edit, COMPLETE]), encoding="utf-8")
    proc = pycline(
        "run", "--provider", "scripted", "--script", str(script), "--yes", "guard the write",
        home=isolated_home, cwd=workspace,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert (workspace / "handler.go").read_text(encoding="utf-8") == scenario.intended
