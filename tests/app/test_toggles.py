"""The user's switches for rules files and workflows: per workspace, global ones everywhere,
and a damaged file means everything is on."""

from __future__ import annotations

from pathlib import Path

import pytest

from pycline.app.settings.toggle_store import toggles_file
from pycline.app.settings.toggles import enabled_workflows, gather_rules, rule_toggles, switch


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


@pytest.fixture
def two_projects(tmp_path: Path) -> tuple[Path, Path, Path]:
    home, one, two = tmp_path / "home", tmp_path / "one", tmp_path / "two"
    for root in (one, two):
        _write(root / ".clinerules" / "style.md", f"Style of {root.name}.")
        _write(root / ".clinerules" / "workflows" / "release.md", "Bump")
    _write(home / "rules" / "safety.md", "Never push to main.")
    _write(home / "workflows" / "deploy.md", "Ship")
    return home, one, two


def test_a_workspace_switch_does_not_reach_another_workspace(
    two_projects: tuple[Path, Path, Path],
) -> None:
    home, one, two = two_projects
    switch(home, one, "rules", ".clinerules/style.md", False)
    switch(home, one, "workflows", "/release", False)
    assert "Style of one." not in gather_rules(home, one)
    assert "Style of two." in gather_rules(home, two)
    assert [w.name for w in enabled_workflows(home, one)] == ["deploy.md"]
    assert [w.name for w in enabled_workflows(home, two)] == ["release.md", "deploy.md"]


def test_a_global_switch_applies_in_every_workspace(
    two_projects: tuple[Path, Path, Path],
) -> None:
    home, one, two = two_projects
    (switched,) = switch(home, one, "rules", str(home / "rules" / "safety.md"), False)
    assert switched.is_global
    for root in (one, two):
        assert "Never push to main." not in gather_rules(home, root)
        assert [(t.name, t.on) for t in rule_toggles(home, root)] == [
            ("safety.md", False),
            (".clinerules/style.md", True),
        ]
    switch(home, two, "rules", "safety.md", True)
    assert "Never push to main." in gather_rules(home, one)


def test_a_damaged_switches_file_means_everything_is_on(
    two_projects: tuple[Path, Path, Path],
) -> None:
    home, one, _ = two_projects
    switch(home, one, "workflows", "deploy", False)
    for damage in ("{not json", '{"workflows": {"global": {"deploy.md": "off"}}}', "[]"):
        toggles_file(home).write_text(damage, encoding="utf-8")
        assert [w.name for w in enabled_workflows(home, one)] == ["release.md", "deploy.md"]
    switch(home, one, "workflows", "deploy.md", False)  # a damaged file is replaced, not fatal
    assert [w.name for w in enabled_workflows(home, one)] == ["release.md"]


def test_switching_a_name_that_matches_nothing_raises_key_error(
    two_projects: tuple[Path, Path, Path],
) -> None:
    home, one, _ = two_projects
    with pytest.raises(KeyError):
        switch(home, one, "workflows", "nope", False)
    assert not toggles_file(home).exists()
