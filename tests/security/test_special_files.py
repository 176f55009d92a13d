"""A cloned repository whose files pycline reads on its own are FIFOs, links to `/dev/zero` or JSON
nested without end: `pycline run` neither hangs, nor reads without end, nor crashes."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.security.attack import COMPLETE, scripted, write_file

DEFINITIONS = "<list_code_definition_names>\n<path>.</path>\n</list_code_definition_names>"


def _skill(workspace: Path, name: str) -> Path:
    folder = workspace / ".clinerules" / "skills" / name
    folder.mkdir(parents=True)
    return folder / "SKILL.md"


def test_fifos_and_device_links_in_the_repo_neither_hang_nor_flood_a_task(
    isolated_home: Path, workspace: Path
) -> None:
    os.mkfifo(_skill(workspace, "hangs"))
    _skill(workspace, "floods").symlink_to("/dev/zero")
    _skill(workspace, "fine").write_text(
        "---\nname: fine\ndescription: a skill that reads fine\n---\nDo it well.\n",
        encoding="utf-8",
    )
    os.mkfifo(workspace / ".gitignore")  # git reads it on every checkpoint
    (workspace / "sub").mkdir()
    os.mkfifo(workspace / "sub" / ".gitignore")
    os.mkfifo(workspace / ".gitattributes")
    os.mkfifo(workspace / "blocks.py")
    (workspace / "ok.py").write_text("def visible():\n    pass\n", encoding="utf-8")
    replies = [write_file("a.txt", "hello"), DEFINITIONS, COMPLETE]
    proc = scripted(workspace, isolated_home, replies, "--yes", "--json", timeout=90)
    assert "Traceback" not in proc.stderr, proc.stderr[-3000:]
    assert proc.returncode == 0, proc.stderr[-3000:]
    events = [json.loads(line) for line in proc.stdout.splitlines()]
    # Checkpoints were taken (git was not left blocked on the FIFOs), after each tool.
    assert len([e for e in events if e["kind"] == "checkpoint_created"]) >= 2
    sent = json.dumps(events)
    assert "visible" in sent  # the definitions of the readable file
    assert (workspace / "a.txt").read_text(encoding="utf-8") == "hello\n"
    folder = next((isolated_home / "tasks").iterdir())
    system = json.loads((folder / "api_conversation_history.json").read_text(encoding="utf-8"))
    assert system  # the history saved and loads


@pytest.mark.parametrize("trap", ["fifo", "dev-zero", "nested 100k deep"])
def test_a_repo_settings_file_that_is_a_trap_is_a_clear_error(
    isolated_home: Path, workspace: Path, trap: str
) -> None:
    settings = workspace / ".pycline" / "settings.json"
    settings.parent.mkdir()
    if trap == "fifo":
        os.mkfifo(settings)
    elif trap == "dev-zero":
        settings.symlink_to("/dev/zero")
    else:
        settings.write_text('{"model": ' + "[" * 100_000 + "]" * 100_000 + "}", encoding="utf-8")
    proc = scripted(workspace, isolated_home, [COMPLETE], "--yes", timeout=60)
    assert "Traceback" not in proc.stderr, proc.stderr[-3000:]
    assert proc.returncode == 2
    assert str(settings) in proc.stderr
    said = proc.stderr.strip().splitlines()[-1]
    assert any(why in said for why in ("not a regular file", "system file", "nested deeper"))
