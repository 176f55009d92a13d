"""Files pycline reads on its own (rules, mentions, `.clineignore` includes) cannot be links out of
the workspace, into `/proc`, or FIFOs and devices that hang or flood the agent."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.fakes.openai_server import FakeOpenAI
from tests.security.attack import COMPLETE, model_saw, run, scripted

ENV_MARKER = "ENVIRON-LEAK-7d1c"


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A folder next to the workspace, holding what a repository must not reach."""
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "secret.txt").write_text("OUTSIDE-SECRET-1\n", encoding="utf-8")
    (folder / "rules.md").write_text("OUTSIDE-SECRET-2\n", encoding="utf-8")
    return folder


def test_rule_files_linked_out_of_the_repo_never_reach_the_model(
    isolated_home: Path, workspace: Path, outside: Path
) -> None:
    (workspace / "AGENTS.md").symlink_to("/proc/self/environ")
    (workspace / ".cursorrules").symlink_to(outside / "secret.txt")
    (workspace / ".clinerules").mkdir()
    (workspace / ".clinerules" / "leak.md").symlink_to(outside / "rules.md")
    (workspace / ".clinerules" / "all").symlink_to(outside)
    (workspace / ".clinerules" / "own.md").write_text("OWN-RULE-OK\n", encoding="utf-8")
    os.mkfifo(workspace / ".windsurfrules")
    os.mkfifo(workspace / ".clinerules" / "hang.md")
    with FakeOpenAI([COMPLETE]) as model:
        proc = run(
            workspace,
            isolated_home,
            "--provider",
            "openai",
            "--base-url",
            model.base_url,
            "--yes",
            env={"OPENAI_API_KEY": "sk-x", "LEAKY": ENV_MARKER},
            timeout=30,
        )
        sent = json.dumps([r.body for r in model.completions])
    assert proc.returncode == 0, proc.stderr
    leaked = [m for m in (ENV_MARKER, "OUTSIDE-SECRET-1", "OUTSIDE-SECRET-2") if m in sent]
    assert leaked == []
    assert "OWN-RULE-OK" in sent


def test_mentions_that_resolve_outside_the_repo_or_at_fifos_are_refused(
    isolated_home: Path, workspace: Path, outside: Path
) -> None:
    (workspace / "linkdir").symlink_to(outside)
    (workspace / "link.txt").symlink_to(outside / "secret.txt")
    (workspace / "env.txt").symlink_to("/proc/self/environ")
    os.mkfifo(workspace / "pipe")
    (workspace / "ok.txt").write_text("INSIDE-OK\n", encoding="utf-8")
    task = (
        "see @/../outside/secret.txt @/linkdir/rules.md @/link.txt @/env.txt @/pipe "
        "@/linkdir/ @/ok.txt"
    )
    script = isolated_home / "s.json"
    script.write_text(json.dumps([COMPLETE]), encoding="utf-8")
    proc = run(
        workspace,
        isolated_home,
        "--provider",
        "scripted",
        "--script",
        str(script),
        "--yes",
        env={"LEAKY": ENV_MARKER},
        task=task,
        timeout=30,
    )
    assert proc.returncode == 0, proc.stderr
    seen = model_saw(isolated_home)
    leaked = [m for m in (ENV_MARKER, "OUTSIDE-SECRET-1", "OUTSIDE-SECRET-2") if m in seen]
    assert leaked == []
    assert "INSIDE-OK" in seen


def test_clineignore_includes_read_only_a_bounded_regular_file_in_the_repo(
    isolated_home: Path, workspace: Path, outside: Path
) -> None:
    os.mkfifo(workspace / "patterns.fifo")
    (outside / "patterns").write_text("secret.txt\n", encoding="utf-8")
    (workspace / ".clineignore").write_text(
        "!include patterns.fifo\n!include /dev/zero\n!include ../outside/patterns\nhidden.txt\n",
        encoding="utf-8",
    )
    (workspace / "hidden.txt").write_text("HIDDEN-CONTENT\n", encoding="utf-8")
    proc = scripted(
        workspace,
        isolated_home,
        ["<read_file>\n<path>hidden.txt</path>\n</read_file>", COMPLETE],
        "--yes",
        timeout=30,
    )
    assert proc.returncode == 0, proc.stderr
    assert "HIDDEN-CONTENT" not in model_saw(isolated_home)
