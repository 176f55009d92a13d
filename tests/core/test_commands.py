"""Slash commands: built-ins and workflows become explicit instructions."""

from __future__ import annotations

from pathlib import Path

from pycline.core.commands import expand
from pycline.workspace.workflows import enabled_workflows


def _workflow(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def test_a_builtin_command_is_removed_and_its_instructions_come_first(tmp_path: Path) -> None:
    out = expand("please /newtask now", [])
    assert out.command == "newtask"
    assert out.text.startswith('<explicit_instructions type="newtask">\n')
    assert out.text.endswith("</explicit_instructions>\nplease now")
    assert "new_task" in out.text


def test_a_workflow_runs_by_file_name_or_stem_and_is_read_when_invoked(tmp_path: Path) -> None:
    path = _workflow(tmp_path / ".clinerules" / "workflows", "release.md", "# Release\n1. tag")
    flows = enabled_workflows(tmp_path, None)
    assert expand("/release.md", flows).text.startswith('<explicit_instructions type="release.md">')
    path.write_text("# Release\n2. push", encoding="utf-8")
    assert "2. push" in expand("do /release", flows).text


def test_the_workspace_workflow_wins_over_a_global_one_and_toggles_switch_off(
    tmp_path: Path,
) -> None:
    _workflow(tmp_path / "ws" / ".clinerules" / "workflows", "ship.md", "local steps")
    _workflow(tmp_path / "global", "ship.md", "global steps")
    _workflow(tmp_path / "global", "other.md", "other steps")
    flows = enabled_workflows(tmp_path / "ws", tmp_path / "global")
    assert "local steps" in expand("/ship.md", flows).text
    off = enabled_workflows(
        tmp_path / "ws", tmp_path / "global", global_toggles={"other.md": False}
    )
    assert expand("/other.md", off).command is None


def test_text_that_only_looks_like_a_command_is_left_alone() -> None:
    for text in ("see src/main.py", "/unknown thing", "a/b", "http://x/y"):
        assert expand(text, []).text == text


def test_only_the_first_command_applies() -> None:
    out = expand("/smol then /newrule", [])
    assert out.command == "smol" and "/newrule" in out.text


def test_a_workflow_is_described_by_its_first_line(tmp_path: Path) -> None:
    _workflow(tmp_path / ".clinerules" / "workflows", "pr.md", "## Open a pull request\n...")
    (listed,) = enabled_workflows(tmp_path, None)
    assert (listed.name, listed.description) == ("pr.md", "Open a pull request")
