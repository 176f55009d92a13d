"""`.clineignore`: gitignore patterns, `!include`, reloads, and refusing commands that read."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pycline.workspace.ignore import IgnoreRules

from .helpers import write


def test_nothing_is_blocked_without_a_clineignore(workspace: Path) -> None:
    write(workspace, "secret.env", "KEY=1")
    rules = IgnoreRules.load(workspace)
    assert not rules.blocked(workspace / "secret.env")
    assert rules.command_refusal("cat secret.env") is None


def test_patterns_block_files_and_folders(workspace: Path) -> None:
    write(workspace, ".clineignore", "*.env\nprivate/\n!keep.env\n")
    write(workspace, "a.env")
    write(workspace, "keep.env")
    write(workspace, "private/deep/x.txt")
    rules = IgnoreRules.load(workspace)
    assert rules.blocked(workspace / "a.env")
    assert rules.blocked(Path("a.env"))  # relative to the root
    assert not rules.blocked(workspace / "keep.env")
    assert rules.blocked(workspace / "private")
    assert rules.blocked(workspace / "private/deep/x.txt")
    assert not rules.blocked(workspace / "src/a.py")


def test_the_ignore_file_itself_is_blocked(workspace: Path) -> None:
    write(workspace, ".clineignore", "*.env\n")
    assert IgnoreRules.load(workspace).blocked(workspace / ".clineignore")


def test_paths_outside_the_workspace_are_not_its_business(workspace: Path) -> None:
    write(workspace, ".clineignore", "*\n")
    assert not IgnoreRules.load(workspace).blocked(workspace.parent / "other.txt")


def test_include_directive_pulls_in_another_file(workspace: Path) -> None:
    write(workspace, ".clineignore", "!include .gitignore\n*.pem\n")
    write(workspace, ".gitignore", "dist/\n")
    rules = IgnoreRules.load(workspace)
    assert rules.blocked(workspace / "dist/app.js")
    assert rules.blocked(workspace / "key.pem")


def test_include_cycle_terminates(workspace: Path) -> None:
    write(workspace, ".clineignore", "!include other\n")
    write(workspace, "other", "!include .clineignore\nx.txt\n")
    assert IgnoreRules.load(workspace).blocked(workspace / "x.txt")


def test_changes_to_the_file_are_picked_up(workspace: Path) -> None:
    ignore = write(workspace, ".clineignore", "a.txt\n")
    rules = IgnoreRules.load(workspace)
    assert rules.blocked(workspace / "a.txt")
    ignore.write_text("b.txt\n", encoding="utf-8")
    st = ignore.stat()
    os.utime(ignore, ns=(st.st_atime_ns, st.st_mtime_ns + 5_000_000_000))
    assert not rules.blocked(workspace / "a.txt")
    assert rules.blocked(workspace / "b.txt")


def test_included_file_changes_are_picked_up(workspace: Path) -> None:
    write(workspace, ".clineignore", "!include extra\n")
    extra = write(workspace, "extra", "a.txt\n")
    rules = IgnoreRules.load(workspace)
    assert rules.blocked(workspace / "a.txt")
    extra.write_text("a.txt\nb.txt\n", encoding="utf-8")
    assert rules.blocked(workspace / "b.txt")


def test_commands_reading_blocked_files_are_refused(workspace: Path) -> None:
    write(workspace, ".clineignore", ".env\nsecrets/\n")
    write(workspace, ".env", "TOKEN=x")
    write(workspace, "secrets/key.txt", "k")
    rules = IgnoreRules.load(workspace, command_permissions="")
    for command in (
        "cat .env",
        "head -n 3 .env",
        "grep TOKEN .env",
        "sed -n 1p secrets/key.txt",
        "ls && cat ./.env",
        "echo $(cat .env)",
        "sudo -E cat .env",
        "LANG=C awk '{print}' .env",
        "wc -l < .env",
        "cat secrets/*.txt",
        "/bin/cat .env",
        # wrappers are found the way the reach and danger checks find them
        "/usr/bin/sudo cat .env",
        "doas cat .env",
        "timeout 5 cat .env",
        "xargs -n 1 cat .env",
        "stdbuf -o0 cat .env",
    ):
        refusal = rules.command_refusal(command)
        assert refusal is not None and ".clineignore" in refusal, command


def test_commands_not_reading_blocked_files_run(workspace: Path) -> None:
    write(workspace, ".clineignore", ".env\n")
    rules = IgnoreRules.load(workspace, command_permissions="")
    for command in ("cat README.md", "ls -la", "echo .env", "git status", "npm test"):
        assert rules.command_refusal(command) is None, command


def test_permission_rules_apply_to_commands(workspace: Path) -> None:
    rules = IgnoreRules.load(workspace, command_permissions='{"allow": ["npm *"]}')
    assert rules.command_refusal("npm test") is None
    refusal = rules.command_refusal("curl http://x")
    assert refusal is not None and "CLINE_COMMAND_PERMISSIONS" in refusal


def test_permission_rules_come_from_the_environment(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CLINE_COMMAND_PERMISSIONS", '{"deny": ["rm *"]}')
    rules = IgnoreRules.load(workspace)
    assert rules.command_refusal("rm -rf build") is not None
    assert rules.command_refusal("ls") is None


def test_a_clineignore_created_later_takes_effect(workspace: Path) -> None:
    rules = IgnoreRules.load(workspace)
    assert not rules.blocked(workspace / "a.txt")
    write(workspace, ".clineignore", "a.txt\n")
    assert rules.blocked(workspace / "a.txt")
