"""Small things a terminal user expects: --version, typo help, tasks from stdin or a file, quiet
pipes, and checkpoint commands that default to the latest task."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.cli.task_cli import (
    COMPLETE,
    cli_env,
    history,
    pycline,
    run_task,
    script_file,
    write_file,
)


def _run_with_stdin(
    args: list[str], stdin: str, home: Path, cwd: Path
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pycline", *args],
        cwd=cwd,
        env=cli_env(home),
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_version_prints_the_package_version(isolated_home: Path, workspace: Path) -> None:
    from importlib.metadata import version

    proc = pycline("--version", home=isolated_home, cwd=workspace)
    assert proc.returncode == 0
    assert proc.stdout.strip() == f"pycline-agent {version('pycline-agent')}"


def test_a_mistyped_subcommand_is_named_not_started_as_a_task(
    isolated_home: Path, workspace: Path
) -> None:
    proc = pycline("histroy", home=isolated_home, cwd=workspace)
    assert proc.returncode == 2
    assert "did you mean `pycline history`" in proc.stderr
    assert not (isolated_home / "tasks").exists()


def test_run_dash_reads_the_task_from_stdin(
    isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    script = script_file(tmp_path, [COMPLETE])
    task = "rename the helper\nand update its callers"
    proc = _run_with_stdin(
        ["run", "-", "--provider", "scripted", "--script", str(script), "--yes"],
        task,
        isolated_home,
        workspace,
    )
    assert proc.returncode == 0, proc.stderr
    assert [r["task"] for r in history(isolated_home)] == [task]


def test_run_task_file_reads_the_task_from_a_file(
    isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    script = script_file(tmp_path, [COMPLETE])
    task_file = tmp_path / "task.md"
    task_file.write_text("# Task\nwrite the docs\n", encoding="utf-8")
    proc = pycline(
        "run",
        "--task-file",
        str(task_file),
        "--provider",
        "scripted",
        "--script",
        str(script),
        home=isolated_home,
        cwd=workspace,
    )
    assert proc.returncode == 0, proc.stderr
    assert [r["task"] for r in history(isolated_home)] == ["# Task\nwrite the docs"]


def test_an_empty_task_from_stdin_is_refused(isolated_home: Path, workspace: Path) -> None:
    proc = _run_with_stdin(["run", "-", "--provider", "scripted"], "  \n", isolated_home, workspace)
    assert proc.returncode == 2
    assert "no task given" in proc.stderr


def test_output_into_a_closed_pipe_ends_quietly(
    isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    run_task(isolated_home, workspace, [COMPLETE], script_dir=tmp_path)
    proc = subprocess.Popen(
        [sys.executable, "-m", "pycline", "history"],
        cwd=workspace,
        env=cli_env(isolated_home),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # like `| head` that has read enough
    err = proc.stderr.read()
    proc.stderr.close()
    assert proc.wait(timeout=60) == 141
    assert err == b""


def test_diff_and_restore_default_to_the_latest_task(
    isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    (workspace / "a.txt").write_text("one\n", encoding="utf-8")
    subprocess.run(["git", "init", "-q"], cwd=workspace, check=True)
    run_task(
        isolated_home, workspace, [write_file("a.txt", "two\n"), COMPLETE], script_dir=tmp_path
    )
    diff = pycline("diff", home=isolated_home, cwd=workspace)
    assert diff.returncode == 0, diff.stderr
    assert "-one" in diff.stdout and "+two" in diff.stdout
    restore = pycline("restore", "1", "--workspace", home=isolated_home, cwd=workspace)
    assert restore.returncode == 0, restore.stderr
    assert (workspace / "a.txt").read_text(encoding="utf-8") == "one\n"


def test_a_task_longer_than_the_context_window_is_refused_before_any_request(
    isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    script = script_file(tmp_path, [COMPLETE])
    huge = "explain this log:\n" + "error at line 42 in module x\n" * 20_000  # ~166k tokens
    proc = _run_with_stdin(
        ["run", "-", "--provider", "scripted", "--script", str(script), "--yes"],
        huge,
        isolated_home,
        workspace,
    )
    assert proc.returncode == 2
    assert "tokens, but scripted/scripted has a 200,000-token context window" in proc.stderr
    assert not (isolated_home / "tasks").exists() or not any((isolated_home / "tasks").iterdir())


def test_help_loads_neither_package_metadata_nor_the_doctor() -> None:
    # `pycline --help` stays fast: the version is looked up only for `--version`, the doctor and
    # the completion scripts only when run.
    check = (
        "import sys\nfrom pycline.cli.main import main\ntry:\n    main(['--help'])\n"
        "except SystemExit:\n    pass\n"
        "print(sorted(m for m in ('importlib.metadata', 'pycline.app.doctor', "
        "'pycline.cli.shell_completion', 'pycline.cli.doctor_cmd') if m in sys.modules))"
    )
    result = subprocess.run(
        [sys.executable, "-c", check], capture_output=True, text=True, timeout=60, check=True
    )
    assert result.stdout.strip().splitlines()[-1] == "[]"
