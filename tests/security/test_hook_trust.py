"""Trust in a project's hook is trust in that file, in that project: repository B whose
`.clinerules` links to trusted repository A's does not run B's own script through A's hook."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.security.attack import COMPLETE, scripted

HOOK = '#!/bin/sh\n./check.sh\necho "{}"\n'


def _project(folder: Path, marker: Path, who: str) -> Path:
    folder.mkdir()
    check = folder / "check.sh"
    check.write_text(f"#!/bin/sh\necho {who} >> {marker}\n", encoding="utf-8")
    check.chmod(0o755)
    return folder


def _trust(home: Path, project: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "pycline", "hooks", "trust", "--cwd", str(project)],
        env={"PYCLINE_HOME": str(home), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr


def test_a_linked_clinerules_does_not_borrow_another_projects_hook_trust(
    isolated_home: Path, tmp_path: Path
) -> None:
    marker = tmp_path / "ran.txt"
    a = _project(tmp_path / "a", marker, "A")
    hooks = a / ".clinerules" / "hooks"
    hooks.mkdir(parents=True)
    (hooks / "TaskStart").write_text(HOOK, encoding="utf-8")
    (hooks / "TaskStart").chmod(0o755)
    _trust(isolated_home, a)
    first = scripted(a, isolated_home, [COMPLETE])
    assert first.returncode == 0, first.stderr
    assert marker.read_text(encoding="utf-8") == "A\n"  # trusted in A, it runs there

    b = _project(tmp_path / "b", marker, "B")
    (b / ".clinerules").symlink_to(Path("..") / "a" / ".clinerules")
    second = scripted(b, isolated_home, [COMPLETE])
    assert second.returncode == 0, second.stderr
    assert marker.read_text(encoding="utf-8") == "A\n"  # B's check.sh never ran
    assert "TaskStart" in second.stdout + second.stderr  # the user is told it was left out


def test_a_hook_file_linked_from_a_trusted_project_is_not_trusted_here(
    isolated_home: Path, tmp_path: Path
) -> None:
    marker = tmp_path / "ran.txt"
    a = _project(tmp_path / "a", marker, "A")
    (a / ".clinerules" / "hooks").mkdir(parents=True)
    hook = a / ".clinerules" / "hooks" / "TaskStart"
    hook.write_text(HOOK, encoding="utf-8")
    hook.chmod(0o755)
    _trust(isolated_home, a)
    b = _project(tmp_path / "b", marker, "B")
    (b / ".clinerules" / "hooks").mkdir(parents=True)
    (b / ".clinerules" / "hooks" / "TaskStart").symlink_to(hook)
    proc = scripted(b, isolated_home, [COMPLETE])
    assert proc.returncode == 0, proc.stderr
    assert not marker.exists()
