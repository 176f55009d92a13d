"""Choosing the server for a file: by suffix, overridable, never from inside the workspace."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from pycline.workspace.diagnostics.servers import launch_for


def test_python_and_typescript_files_get_their_servers_and_language_ids() -> None:
    python = launch_for(Path("a.py"), {"python": [sys.executable, "--stdio"]})
    assert python is not None and python.spec.language_ids[".py"] == "python"
    tsx = launch_for(Path("a.tsx"), {"typescript": [sys.executable]})
    assert tsx is not None and tsx.spec.language_ids[".tsx"] == "typescriptreact"
    assert tsx.command == (sys.executable,)


def test_files_without_a_server_get_none() -> None:
    assert launch_for(Path("notes.md"), {}) is None


def test_an_empty_command_turns_a_language_off() -> None:
    assert launch_for(Path("a.py"), {"python": []}) is None


def test_a_missing_executable_means_no_server() -> None:
    assert launch_for(Path("a.go"), {"go": ["no-such-gopls-anywhere"]}) is None


def test_a_workspace_binary_is_not_found_by_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bin_dir = tmp_path / "node_modules" / ".bin"
    bin_dir.mkdir(parents=True)
    fake = bin_dir / "typescript-language-server-xyz"
    fake.write_text("#!/bin/sh\n")
    fake.chmod(0o755)
    monkeypatch.chdir(tmp_path)
    assert launch_for(Path("a.ts"), {"typescript": ["typescript-language-server-xyz"]}) is None
