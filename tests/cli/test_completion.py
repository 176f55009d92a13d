"""`@` completes workspace paths at the interactive prompt."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pexpect

from pycline.cli.completion import path_candidates


def test_candidates_list_folders_with_slash_and_never_leave_the_workspace(
    workspace: Path,
) -> None:
    (workspace / "src" / "pkg").mkdir(parents=True)
    (workspace / "src" / "main.py").write_text("", encoding="utf-8")
    (workspace / "setup.py").write_text("", encoding="utf-8")
    (workspace / "node_modules").mkdir()
    assert path_candidates(workspace, "s") == ["setup.py", "src/"]
    assert path_candidates(workspace, "src/") == ["src/main.py", "src/pkg/"]
    assert path_candidates(workspace, "n") == []  # heavy folders are not offered
    assert path_candidates(workspace, "../") == []


def test_tab_after_at_completes_a_path_in_a_real_terminal(
    isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    (workspace / "src").mkdir()
    (workspace / "src" / "main.py").write_text("print(1)\n", encoding="utf-8")
    script = tmp_path / "s.json"
    done = "<attempt_completion>\n<result>ok</result>\n</attempt_completion>"
    script.write_text(json.dumps([done]), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update({"PYCLINE_HOME": str(isolated_home), "NO_COLOR": "1", "TERM": "xterm"})
    child = pexpect.spawn(
        sys.executable,
        ["-m", "pycline", "--provider", "scripted", "--script", str(script)],
        cwd=str(workspace),
        env=env,
        encoding="utf-8",
        timeout=60,
        dimensions=(40, 160),
    )
    child.expect("Task>")
    child.send("explain @src/ma\t")
    child.expect("@/src/main.py")
    child.send("\r")
    child.expect("Press Enter to accept")
    child.sendline("")
    child.expect("Task>")
    child.sendeof()
    child.expect(pexpect.EOF)
    task_dir = next((isolated_home / "tasks").iterdir())
    history = json.loads((task_dir / "api_conversation_history.json").read_text(encoding="utf-8"))
    first = history[0]["content"][0]["text"]
    assert '<file_content path="src/main.py">' in first
    assert "print(1)" in first  # the mention was expanded into the file's content
