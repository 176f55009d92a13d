"""Problems after an edit: real tree-sitter parses, and only what the edit introduced."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from pycline.editing.linters import commands_for, lint
from pycline.editing.problems import Problem, ProblemCheck, new_problems, render_problems
from pycline.editing.syntax import GRAMMARS, syntax_problems


@pytest.mark.parametrize(
    ("name", "good", "bad", "line"),
    [
        ("a.py", "def f(x):\n    return x\n", "def f(x):\n    return (x\n\ny = 1\n", 2),
        ("a.ts", "const a: number = 1;\n", "const a: number = ;\nlet b = 2;\n", 1),
        (
            "a.go",
            "package a\n\nfunc f() int {\n\treturn 1\n}\n",
            "package a\n\nfunc f() int {\n\treturn 1\n",
            5,
        ),
        ("a.rs", "fn f() -> i32 {\n    1\n}\n", "fn f() -> i32 {\n    let x = ;\n}\n", 2),
        ("A.java", "class A { int f() { return 1; } }\n", "class A { int f() { return 1 } }\n", 1),
        ("a.json", '{"a": 1}\n', '{"a": 1,,}\n', 1),
        ("a.yaml", "a: 1\nb: [1, 2]\n", "a: 1\nb: [1, 2\n", 2),
    ],
)
def test_syntax_errors_are_found_with_line_numbers(
    name: str, good: str, bad: str, line: int
) -> None:
    assert syntax_problems(name, good) == []
    found = syntax_problems(name, bad)
    assert found, f"no syntax error found in {name}"
    assert any(abs(p.line - line) <= 1 for p in found), found


def test_every_grammar_wheel_loads() -> None:
    for suffix in sorted(set(GRAMMARS)):
        assert syntax_problems(f"x{suffix}", "") == []


def test_unknown_languages_are_not_checked() -> None:
    assert syntax_problems("notes.txt", "(((") == []


def test_only_new_problems_are_reported_even_when_lines_move() -> None:
    before = [Problem("syntax", 3, "missing `)`"), Problem("lint", 9, "E1 unused")]
    after = [
        Problem("syntax", 5, "missing `)`"),  # the same problem, moved down by the edit
        Problem("lint", 11, "E1 unused"),
        Problem("lint", 12, "E1 unused"),  # a second one: new
        Problem("syntax", 7, "syntax error near `def (`"),
    ]
    assert new_problems(before, after) == [after[2], after[3]]
    text = render_problems("src/a.py", new_problems(before, after))
    assert "src/a.py" in text and "Line 12" in text and "[syntax] Line 7" in text


def _fake_linter(folder: Path) -> list[str]:
    script = folder / "lint_todo.py"
    script.write_text(
        "import sys\n"
        "path = sys.argv[1]\n"
        "for n, line in enumerate(open(path, encoding='utf-8'), 1):\n"
        "    if 'TODO' in line:\n"
        "        print(f'{path}:{n}:1: T001 leftover TODO')\n"
        "print('Found some problems.')\n",
        encoding="utf-8",
    )
    return [sys.executable, str(script), "{file}"]


async def test_a_configured_linter_runs_and_its_output_is_parsed(tmp_path: Path) -> None:
    command = _fake_linter(tmp_path)
    target = tmp_path / "a.py"
    target.write_text("x = 1  # TODO\ny = 2\n", encoding="utf-8")
    found = await lint(target, tmp_path, [command])
    assert [(p.line, p.message) for p in found] == [(1, "T001 leftover TODO")]


async def test_problem_check_reports_what_the_edit_added(tmp_path: Path) -> None:
    linters = {"*.py": tuple(_fake_linter(tmp_path))}
    target = tmp_path / "a.py"
    target.write_text("x = 1  # TODO\n", encoding="utf-8")
    check = ProblemCheck(target, "a.py", tmp_path, linters)
    await check.before("x = 1  # TODO\n")
    new_text = "x = 1  # TODO\ny = (2  # TODO\n"
    target.write_text(new_text, encoding="utf-8")
    problems = await check.after(new_text)
    linter = Path(sys.executable).name
    assert sorted(p.source for p in problems) == sorted([linter, "syntax"])
    assert [p.line for p in problems if p.source == linter] == [2]  # the old TODO is not news


async def test_a_missing_linter_is_skipped(tmp_path: Path) -> None:
    target = tmp_path / "a.py"
    target.write_text("x = 1\n", encoding="utf-8")
    assert await lint(target, tmp_path, [["no-such-linter-here", "{file}"]]) == []


def test_linter_globs_select_commands() -> None:
    linters = {"*.py": ("ruff",), "src/*.ts": ("eslint",)}
    assert commands_for("pkg/a.py", linters) == [("ruff",)]
    assert commands_for("src/a.ts", linters) == [("eslint",)]
    assert commands_for("README.md", linters) == []
