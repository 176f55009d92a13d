"""Skill discovery and the system prompt's SKILLS section."""

from __future__ import annotations

from pathlib import Path

from pycline.workspace.skills import discover_skills, skills_prompt


def _skill(folder: Path, name: str, front_name: str, description: str = "does things") -> Path:
    (folder / name).mkdir(parents=True)
    path = folder / name / "SKILL.md"
    path.write_text(f"---\nname: {front_name}\ndescription: {description}\n---\nbody", "utf-8")
    return path


def test_skills_are_found_in_every_project_folder_and_listed_compactly(tmp_path: Path) -> None:
    _skill(tmp_path / ".clinerules" / "skills", "a", "a", "first")
    _skill(tmp_path / ".agents" / "skills", "b", "b", "second")
    skills = discover_skills(tmp_path)
    assert [s.name for s in skills] == ["a", "b"]
    assert skills_prompt(skills).splitlines()[2:4] == ['  - "a": first', '  - "b": second']
    assert skills_prompt([]) == ""


def test_a_skill_whose_name_differs_from_its_folder_is_skipped(tmp_path: Path) -> None:
    _skill(tmp_path / ".claude" / "skills", "real", "other")
    assert discover_skills(tmp_path) == []


def test_a_global_skill_wins_over_a_project_skill_and_toggles_switch_off(tmp_path: Path) -> None:
    local = _skill(tmp_path / "ws" / ".cline" / "skills", "x", "x", "local")
    _skill(tmp_path / "global", "x", "x", "global")
    (skill,) = discover_skills(tmp_path / "ws", [tmp_path / "global"])
    assert skill.description == "global"
    assert discover_skills(tmp_path / "ws", toggles={str(local): False}) == []
