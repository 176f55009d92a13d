"""`pycline history/show/export/delete/favorite` as real processes, on real task folders."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.cli.task_cli import (
    COMPLETE,
    cli_env,
    history,
    load_json,
    pycline,
    run_task,
    script_file,
    write_file,
)


def test_show_summarises_the_task_with_its_size(
    isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    task_id = run_task(
        isolated_home, workspace, [write_file("a.txt", "a\n"), COMPLETE], script_dir=tmp_path
    )
    proc = pycline("show", task_id, home=isolated_home, cwd=workspace)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert f"Task:      {task_id}" in out
    assert "Status:    completed" in out
    assert "Size:" in out and " KB" in out
    assert "Tool: write_to_file for 'a.txt'" in out
    assert "Completed: done" in out
    assert out.count("Checkpoint ") == 3
    # No id: the latest task of the current folder.
    assert pycline("show", home=isolated_home, cwd=workspace).stdout == out
    data = load_json_from(pycline("show", task_id, "--json", home=isolated_home, cwd=workspace))
    assert data["record"]["id"] == task_id and data["record"]["size"] > 0
    assert data["messages"][0] == {**data["messages"][0], "type": "say", "say": "task"}


def load_json_from(proc: subprocess.CompletedProcess[str]) -> dict[str, object]:
    import json

    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert isinstance(data, dict)
    return data


def test_history_shows_size_and_stars(isolated_home: Path, workspace: Path, tmp_path: Path) -> None:
    task_id = run_task(
        isolated_home, workspace, [COMPLETE], text="starred one", script_dir=tmp_path
    )
    run_task(isolated_home, workspace, [COMPLETE], text="plain one", script_dir=tmp_path)
    assert pycline("favorite", task_id, home=isolated_home, cwd=workspace).returncode == 0
    assert [r["task"] for r in history(isolated_home, "--favorites")] == ["starred one"]
    lines = pycline("history", home=isolated_home, cwd=workspace).stdout.splitlines()
    starred = next(line for line in lines if "starred one" in line)
    assert starred.startswith(f"*{task_id}") and " KB" in starred
    assert pycline("favorite", task_id, "--off", home=isolated_home, cwd=workspace).returncode == 0
    assert history(isolated_home, "--favorites") == []
    meta = load_json(isolated_home / "tasks" / task_id / "task_metadata.json")
    assert meta["record"]["favorite"] is False


def test_export_writes_the_markdown_transcript(
    isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    task_id = run_task(
        isolated_home, workspace, [write_file("a.txt", "a\n"), COMPLETE], script_dir=tmp_path
    )
    out = tmp_path / "t.md"
    proc = pycline("export", task_id, "-o", str(out), home=isolated_home, cwd=workspace)
    assert proc.returncode == 0, proc.stderr
    text = out.read_text(encoding="utf-8")
    assert text.startswith("**User:**\n\n<task>\ndo it\n</task>")
    assert text.count("**Assistant:**") == 2 and text.count("**User:**") == 2
    assert "<write_to_file>" in text
    folder = tmp_path / "exports"
    folder.mkdir()
    assert (
        pycline("export", task_id, "-o", str(folder), home=isolated_home, cwd=workspace).returncode
        == 0
    )
    [named] = folder.iterdir()
    assert named.name.startswith("pycline_task_") and named.read_text(encoding="utf-8") == text
    assert pycline("export", task_id, home=isolated_home, cwd=workspace).stdout == text


def test_delete_removes_folder_row_and_checkpoints(
    isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    first = run_task(
        isolated_home,
        workspace,
        [write_file("a.txt", "a\n"), COMPLETE],
        text="one",
        script_dir=tmp_path,
    )
    second = run_task(isolated_home, workspace, [COMPLETE], text="two", script_dir=tmp_path)
    [shadow] = (isolated_home / "checkpoints").iterdir()

    proc = pycline("delete", first, home=isolated_home, cwd=workspace)
    assert proc.returncode == 0, proc.stderr
    assert "Removed its 3 checkpoints" in proc.stdout
    assert not (isolated_home / "tasks" / first).exists()
    assert [r["id"] for r in history(isolated_home)] == [second]
    listed = pycline("checkpoints", second, "--json", home=isolated_home, cwd=workspace)
    assert len(load_json_list(listed)) == 2  # the other task's checkpoints are still there
    assert shadow.is_dir()

    assert pycline("delete", second, home=isolated_home, cwd=workspace).returncode == 0
    assert not shadow.exists()  # no task uses the store any more
    assert (workspace / "a.txt").read_text(encoding="utf-8") == "a\n"  # files are not touched


def load_json_list(proc: subprocess.CompletedProcess[str]) -> list[object]:
    import json

    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert isinstance(data, list)
    return data


def test_unknown_id_is_one_line_and_exit_2(isolated_home: Path, workspace: Path) -> None:
    for command in ("show", "export", "delete", "favorite"):
        proc = pycline(command, "12345", home=isolated_home, cwd=workspace)
        assert proc.returncode == 2
        assert proc.stderr.strip() == "pycline: No task with id '12345'."


def test_corrupt_task_is_reported_and_the_rest_of_history_loads(
    isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    good = run_task(isolated_home, workspace, [COMPLETE], text="good", script_dir=tmp_path)
    bad = run_task(isolated_home, workspace, [COMPLETE], text="bad", script_dir=tmp_path)
    meta = isolated_home / "tasks" / bad / "task_metadata.json"
    meta.write_bytes(meta.read_bytes()[:40])
    (isolated_home / "history.sqlite").write_bytes(b"garbage" * 1000)
    for suffix in ("-wal", "-shm"):
        Path(f"{isolated_home / 'history.sqlite'}{suffix}").unlink(missing_ok=True)

    proc = pycline("history", home=isolated_home, cwd=workspace)
    assert proc.returncode == 0
    assert "good" in proc.stdout and good in proc.stdout
    assert bad not in proc.stdout
    assert f"task {bad} cannot be read" in proc.stderr and "corrupt" in proc.stderr
    ui = isolated_home / "tasks" / good / "ui_messages.json"
    ui.write_text('[{"ts": 1, "type": "say", "say"', encoding="utf-8")
    shown = pycline("show", good, home=isolated_home, cwd=workspace)
    assert shown.returncode == 1 and "Traceback" not in shown.stderr
    assert "ui_messages.json is corrupt" in shown.stderr and "Status:    completed" in shown.stdout


def test_several_pycline_processes_at_once_keep_a_consistent_history(
    isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    replies = [write_file("f.txt", "x\n"), COMPLETE]
    procs = []
    for n in range(4):
        ws = workspace if n < 2 else tmp_path / f"ws{n}"
        ws.mkdir(exist_ok=True)
        script = script_file(tmp_path, replies, f"s{n}.json")
        procs.append(
            subprocess.Popen(
                [
                    *(sys.executable, "-m", "pycline", "run", "--provider", "scripted"),
                    *("--script", str(script), "--yes", f"parallel {n}"),
                ],
                cwd=ws,
                env=cli_env(isolated_home),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
            )
        )
    for proc in procs:
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
    records = history(isolated_home)
    assert sorted(r["task"] for r in records) == [f"parallel {n}" for n in range(4)]
    assert all(r["status"] == "completed" for r in records)
    assert len({r["id"] for r in records}) == 4
    for r in records:
        folder = isolated_home / "tasks" / r["id"]
        assert len(load_json(folder / "api_conversation_history.json")) == 4
        assert load_json(folder / "task_metadata.json")["record"]["status"] == "completed"
        listed = pycline("checkpoints", r["id"], "--json", home=isolated_home, cwd=workspace)
        assert len(load_json_list(listed)) == 3  # two tasks shared one shadow repository
