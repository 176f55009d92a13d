"""Rules files: sources, toggles, conditional `paths:` front matter."""

from __future__ import annotations

from pathlib import Path

import pytest

from pycline.workspace.rules import discover, gather_rules, matches_glob, split_front_matter

from .helpers import write


def test_no_rules_gives_empty_text(workspace: Path) -> None:
    assert gather_rules(workspace) == ""


def test_every_source_is_named(workspace: Path, isolated_home: Path) -> None:
    write(isolated_home, "rules/personal.md", "Be terse.")
    write(workspace, ".clinerules/01-style.md", "Use tabs.")
    write(workspace, ".clinerules/02-tests.txt", "Write tests.")
    write(workspace, ".clinerules/workflows/release.md", "not a rule")
    write(workspace, ".clinerules/notes.json", "{}")
    write(workspace, ".cursorrules", "Cursor rule.")
    write(workspace, ".windsurfrules", "Windsurf rule.")
    write(workspace, "AGENTS.md", "Agents rule.")
    assert gather_rules(workspace) == (
        "# Rules from global rules: personal.md\nBe terse.\n\n"
        "# Rules from .clinerules/01-style.md\nUse tabs.\n\n"
        "# Rules from .clinerules/02-tests.txt\nWrite tests.\n\n"
        "# Rules from .cursorrules\nCursor rule.\n\n"
        "# Rules from .windsurfrules\nWindsurf rule.\n\n"
        "# Rules from AGENTS.md\nAgents rule."
    )


def test_single_clinerules_file(workspace: Path) -> None:
    write(workspace, ".clinerules", "Always explain.")
    assert gather_rules(workspace) == "# Rules from .clinerules\nAlways explain."


def test_toggles_switch_files_off(workspace: Path, isolated_home: Path) -> None:
    write(isolated_home, "rules/g.md", "global")
    write(workspace, ".clinerules/a.md", "rule a")
    b = write(workspace, ".clinerules/b.md", "rule b")
    text = gather_rules(
        workspace,
        toggles={".clinerules/a.md": False, str(b): True},
        global_toggles={"g.md": False},
    )
    assert "rule a" not in text and "rule b" in text and "global" not in text


def test_discover_lists_files_for_toggling(workspace: Path) -> None:
    write(workspace, ".clinerules/a.md", "x")
    write(workspace, "AGENTS.md", "y")
    assert [r.name for r in discover(workspace)] == [".clinerules/a.md", "AGENTS.md"]


def test_conditional_rule_applies_only_when_a_matching_file_is_in_play(workspace: Path) -> None:
    write(
        workspace,
        ".clinerules/react.md",
        '---\npaths:\n  - "src/components/**"\n  - "*.tsx"\n---\nUse hooks.\n',
    )
    assert gather_rules(workspace) == ""
    assert gather_rules(workspace, paths_in_play=["docs/readme.md"]) == ""
    text = gather_rules(workspace, paths_in_play=["src/components/ui/Button.ts"])
    assert text == "# Rules from .clinerules/react.md\nUse hooks."
    assert gather_rules(workspace, paths_in_play=[str(workspace / "App.tsx")]) != ""


def test_front_matter_without_paths_is_unconditional(workspace: Path) -> None:
    write(workspace, ".clinerules/a.md", "---\ndescription: style\n---\nBody.\n")
    assert gather_rules(workspace) == "# Rules from .clinerules/a.md\nBody."


def test_unreadable_front_matter_keeps_the_whole_rule(workspace: Path) -> None:
    write(workspace, ".clinerules/a.md", "---\npaths: [unclosed\n---\nBody.\n")
    assert "Body." in gather_rules(workspace)


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ("paths: [\"a/**\", 'b.py']", {"paths": ["a/**", "b.py"]}),
        ("paths: src/**/*.ts", {"paths": ["src/**/*.ts"]}),
        ("paths:\n- x\n- 'y z'", {"paths": ["x", "y z"]}),
        ("paths: []", {"paths": []}),
        (
            "title: T\nmeta:\n  nested: 1\npaths:\n  - q",
            {"title": ["T"], "meta": [], "paths": ["q"]},
        ),
    ],
)
def test_front_matter_parser(header: str, expected: dict[str, list[str]]) -> None:
    front, body = split_front_matter(f"---\n{header}\n---\nrule")
    assert front == expected and body == "rule"


@pytest.mark.parametrize(
    ("path", "pattern", "hit"),
    [
        ("src/a.ts", "src/**", True),
        ("src/x/y/a.ts", "src/**/*.ts", True),
        ("src/a.ts", "src/**/*.ts", True),
        ("src/x/a.ts", "src/*.ts", False),
        ("a.tsx", "*.{ts,tsx}", True),
        ("lib/a.tsx", "*.tsx", False),
        ("a1.py", "a[0-9].py", True),
        ("ab.py", "a?.py", True),
    ],
)
def test_glob_matching(path: str, pattern: str, hit: bool) -> None:
    assert matches_glob(path, pattern) is hit


def test_empty_paths_list_never_applies(workspace: Path) -> None:
    write(workspace, ".clinerules/a.md", "---\npaths: []\n---\nNever.\n")
    assert gather_rules(workspace, paths_in_play=["a.py"]) == ""
