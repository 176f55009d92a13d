"""Workspace listing and `list_files`: gitignore, clineignore locks, heavy folders, the cap."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from pycline.errors import ToolError
from pycline.tools.base import Approval, ToolCall
from pycline.tools.listing import ListFilesTool
from pycline.workspace.environment import EnvironmentInfo, environment_details
from pycline.workspace.ignore import IgnoreRules
from pycline.workspace.listing import TRUNCATION_NOTE, format_listing, list_workspace

from .helpers import make_ctx, write


def paths(root: Path, **kwargs: object) -> list[str]:
    entries, _ = list_workspace(root, **kwargs)  # type: ignore[arg-type]
    return [e.path for e in entries]


def test_recursive_listing_shows_tree_with_folders_marked(workspace: Path) -> None:
    write(workspace, "README.md")
    write(workspace, "src/app.py")
    write(workspace, "src/util/helpers.py")
    assert paths(workspace, recursive=True) == [
        "README.md",
        "src/",
        "src/app.py",
        "src/util/",
        "src/util/helpers.py",
    ]


def test_top_level_only_when_not_recursive(workspace: Path) -> None:
    write(workspace, "a.txt")
    write(workspace, "pkg/b.txt")
    assert paths(workspace, recursive=False) == ["a.txt", "pkg/"]


def test_gitignore_hides_entries_including_nested_files(workspace: Path) -> None:
    write(workspace, ".gitignore", "*.log\n/out.txt\n")
    write(workspace, "app.log")
    write(workspace, "out.txt")
    write(workspace, "sub/out.txt")  # anchored pattern: only the top-level one is ignored
    write(workspace, "sub/.gitignore", "generated/\n!important.log\n")
    write(workspace, "sub/generated/x.py")
    write(workspace, "sub/important.log")
    write(workspace, "sub/keep.py")
    listed = paths(workspace, recursive=True)
    assert "app.log" not in listed and "out.txt" not in listed
    assert "sub/out.txt" in listed
    assert "sub/generated/" not in listed and "sub/generated/x.py" not in listed
    assert "sub/important.log" in listed  # re-included by the deeper file
    assert "sub/keep.py" in listed


def test_git_info_exclude_is_honoured(workspace: Path) -> None:
    subprocess.run(["git", "init", "-q"], cwd=workspace, check=True)
    write(workspace, ".git/info/exclude", "local-notes.md\n")
    write(workspace, "local-notes.md")
    write(workspace, "main.py")
    listed = paths(workspace, recursive=True)
    assert "local-notes.md" not in listed
    assert "main.py" in listed
    assert not any(p.startswith(".git/") for p in listed)


def test_parent_gitignore_applies_when_listing_a_subfolder(workspace: Path) -> None:
    subprocess.run(["git", "init", "-q"], cwd=workspace, check=True)
    write(workspace, ".gitignore", "*.tmp\n")
    write(workspace, "pkg/a.tmp")
    write(workspace, "pkg/a.py")
    assert paths(workspace / "pkg", recursive=True) == ["a.py"]


def test_heavy_folders_are_named_but_not_opened(workspace: Path) -> None:
    write(workspace, "node_modules/react/index.js")
    write(workspace, "pkg/__pycache__/m.pyc")
    write(workspace, "pkg/m.py")
    listed = paths(workspace, recursive=True)
    assert "node_modules/" in listed
    assert "node_modules/react/" not in listed
    assert "pkg/__pycache__/" in listed and "pkg/__pycache__/m.pyc" not in listed


def test_listing_inside_a_heavy_folder_opens_it(workspace: Path) -> None:
    write(workspace, "node_modules/react/index.js")
    assert paths(workspace / "node_modules", recursive=True) == ["react/", "react/index.js"]


def test_clineignored_entries_are_locked_and_not_opened(workspace: Path) -> None:
    write(workspace, ".clineignore", "secrets/\n.env\n")
    write(workspace, ".env", "X=1")
    write(workspace, "secrets/key.pem")
    write(workspace, "main.py")
    entries, truncated = list_workspace(workspace, recursive=True)
    text = format_listing(entries, truncated)
    assert "🔒 .env" in text.splitlines()
    assert "🔒 secrets/" in text.splitlines()
    assert "key.pem" not in text
    assert "main.py" in text.splitlines()


def test_breadth_first_cap_keeps_the_top_of_the_tree(workspace: Path) -> None:
    for i in range(5):
        write(workspace, f"top{i}.txt")
    for i in range(30):
        write(workspace, f"deep/level2/file{i}.txt")
    entries, truncated = list_workspace(workspace, recursive=True, limit=10)
    listed = [e.path for e in entries]
    assert truncated and len(listed) == 10
    assert all(f"top{i}.txt" in listed for i in range(5))
    assert "deep/" in listed and "deep/level2/" in listed
    assert TRUNCATION_NOTE in format_listing(entries, truncated)


def test_exactly_the_limit_is_not_truncated(workspace: Path) -> None:
    for i in range(3):
        write(workspace, f"f{i}.txt")
    entries, truncated = list_workspace(workspace, recursive=True, limit=3)
    assert len(entries) == 3 and not truncated


def test_natural_order(workspace: Path) -> None:
    for name in ("file10.txt", "file2.txt", "File1.txt"):
        write(workspace, name)
    assert paths(workspace, recursive=False) == ["File1.txt", "file2.txt", "file10.txt"]


def test_empty_folders_are_listed(workspace: Path) -> None:
    (workspace / "empty").mkdir()
    assert paths(workspace, recursive=True) == ["empty/"]


def test_environment_details_include_the_listing(workspace: Path) -> None:
    write(workspace, "hello.py")
    details = environment_details(workspace, EnvironmentInfo("act", 0, 0, first_request=True))
    assert "hello.py" in details


async def test_list_files_tool_lists_and_asks_as_a_read(workspace: Path) -> None:
    write(workspace, "src/a.py")
    write(workspace, "src/pkg/b.py")
    ctx, rec = make_ctx(workspace, access=IgnoreRules.load(workspace))
    tool = ListFilesTool()
    call = ToolCall("list_files", {"path": "src", "recursive": "true"})
    result = await tool.run(call, ctx)
    assert result.text.splitlines() == ["a.py", "pkg/", "pkg/b.py"]
    _, category, outside = rec.questions[0]
    assert category == "read" and not outside
    assert tool.summary(call) == "list_files for 'src'"


async def test_list_files_outside_workspace_is_flagged(workspace: Path, tmp_path: Path) -> None:
    write(tmp_path, "elsewhere/x.txt")
    ctx, rec = make_ctx(workspace)
    await ListFilesTool().run(ToolCall("list_files", {"path": "../elsewhere"}), ctx)
    assert rec.questions[0][2] is True


async def test_list_files_denied(workspace: Path) -> None:
    write(workspace, "a.txt")
    ctx, _ = make_ctx(workspace, approve_with=Approval(False, "not now"))
    result = await ListFilesTool().run(ToolCall("list_files", {"path": "."}), ctx)
    assert result.denied and "not now" in result.text and "a.txt" not in result.text


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"path": "missing"}, "does not exist"),
        ({"path": "file.txt"}, "is a file"),
        ({"path": "secret"}, ".clineignore"),
        ({}, "Missing value"),
    ],
)
async def test_list_files_bad_paths_are_tool_errors(
    workspace: Path, params: dict[str, str], message: str
) -> None:
    write(workspace, "file.txt")
    write(workspace, "secret/x")
    write(workspace, ".clineignore", "secret/\n")
    ctx, _ = make_ctx(workspace, access=IgnoreRules.load(workspace))
    with pytest.raises(ToolError, match=message):
        await ListFilesTool().run(ToolCall("list_files", params), ctx)


GITIGNORE_LINES = ["*.log", "!keep.log", "build/", "/root-only", "docs/**/*.tmp", "a?c", "[Tt]emp"]


@pytest.mark.parametrize(
    "rel",
    ["x.log", "keep.log", "sub/keep.log", "build", "src/build", "root-only", "sub/root-only",
     "docs/a/b.tmp", "abc", "sub/axc", "Temp", "temp", "plain.py", "build.py"],
)  # fmt: skip
@pytest.mark.parametrize("is_dir", [False, True])
def test_ignore_chain_agrees_with_pathspec(workspace: Path, rel: str, is_dir: bool) -> None:
    import pathspec

    from pycline.workspace.gitignore import IgnoreChain

    write(workspace, ".gitignore", "\n".join(GITIGNORE_LINES) + "\n")
    chain = IgnoreChain().enter(workspace, "")
    expected = pathspec.GitIgnoreSpec.from_lines(GITIGNORE_LINES).check_file(
        rel + ("/" if is_dir else "")
    )
    assert chain.ignored(rel, is_dir=is_dir) is bool(expected.include)
