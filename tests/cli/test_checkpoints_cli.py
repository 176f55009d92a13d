"""`pycline checkpoints / diff / restore` as real processes, against real git."""

from __future__ import annotations

import json
import os
from pathlib import Path

from tests.checkpoints.helpers import git_dirs_fingerprint, make_repo, worktree_state, write
from tests.cli.task_cli import COMPLETE, command, load_json, pycline, run_task, write_file

# Changes content, adds a file, deletes one, flips an exec bit, and writes a binary file.
REPLIES = [
    write_file("src/app.py", "print('new')\n"),
    write_file("notes/new.md", "# new\n"),
    command(
        "rm old.txt && chmod +x tool.sh && chmod -x bin.sh && printf '\\000\\001\\002' > data.bin"
    ),
    COMPLETE,
]


def _workspace(ws: Path) -> None:
    write(ws / "src" / "app.py", "print('old')\n")
    write(ws / "old.txt", "to be removed\n")
    write(ws / "tool.sh", "echo tool\n")
    write(ws / "bin.sh", "echo bin\n")
    os.chmod(ws / "bin.sh", 0o755)
    write(ws / "data.bin", b"\xff\xfe old binary \x00")


def _checkpoints(home: Path, ws: Path, task_id: str) -> list[dict[str, object]]:
    proc = pycline("checkpoints", task_id, "--json", home=home, cwd=ws)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert isinstance(data, list)
    return data


def test_list_shows_each_checkpoint_with_time_and_label(
    isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    _workspace(workspace)
    task_id = run_task(isolated_home, workspace, REPLIES, script_dir=tmp_path)
    rows = _checkpoints(isolated_home, workspace, task_id)
    labels = [str(r["label"]) for r in rows]
    assert labels[:3] == [
        "task start",
        "after write_to_file src/app.py",
        "after write_to_file notes/new.md",
    ]
    assert labels[3].startswith("after execute_command rm old.txt && chmod")
    assert len(labels[3]) <= len("after execute_command ") + 80  # long commands are cut
    assert labels[4] == "after attempt_completion"
    plain = pycline("checkpoints", task_id, home=isolated_home, cwd=workspace).stdout.splitlines()
    assert len(plain) == 5
    assert plain[0].split()[0] == "1" and str(rows[0]["commit"])[:10] in plain[0]


def test_restore_workspace_is_byte_exact_and_can_be_undone(
    isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    _workspace(workspace)
    before = worktree_state(workspace)
    task_id = run_task(isolated_home, workspace, REPLIES, script_dir=tmp_path)
    after = worktree_state(workspace)
    assert after != before

    proc = pycline("restore", task_id, "1", "--workspace", home=isolated_home, cwd=workspace)
    assert proc.returncode == 0, proc.stderr
    assert worktree_state(workspace) == before  # content, deletions, new files, exec bits
    # The state just before the restore became a checkpoint: the restore can be undone.
    undo = proc.stdout.split("pycline restore ")[1].split()
    back = pycline("restore", *undo, home=isolated_home, cwd=workspace)
    assert back.returncode == 0, back.stderr
    assert worktree_state(workspace) == after

    third = str(_checkpoints(isolated_home, workspace, task_id)[2]["commit"])
    assert (
        pycline(
            "restore", task_id, third[:8], "--workspace", home=isolated_home, cwd=workspace
        ).returncode
        == 0
    )
    middle = worktree_state(workspace)
    assert middle["notes/new.md"][2] == b"# new\n" and middle["old.txt"][2] == b"to be removed\n"
    assert middle["bin.sh"][1] & 0o111 and not middle["tool.sh"][1] & 0o111


def test_diff_against_now_and_between_checkpoints(
    isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    _workspace(workspace)
    task_id = run_task(isolated_home, workspace, REPLIES, script_dir=tmp_path)
    proc = pycline("diff", task_id, "1", "--stat", home=isolated_home, cwd=workspace)
    assert proc.returncode == 0, proc.stderr
    assert sorted(proc.stdout.splitlines()[:-1]) == sorted(
        [
            "modified  src/app.py",
            "added     notes/new.md",
            "deleted   old.txt",
            "modified  tool.sh",
            "modified  bin.sh",
            "modified  data.bin",
        ]
    )
    full = pycline("diff", task_id, "1", "2", home=isolated_home, cwd=workspace).stdout
    assert "-print('old')\n+print('new')\n" in full
    assert full.rstrip().splitlines()[-1].startswith("1 file changed from ")
    (workspace / "src" / "app.py").write_text("print('mine')\n", encoding="utf-8")
    now = pycline("diff", task_id, "5", home=isolated_home, cwd=workspace).stdout
    assert "-print('new')\n+print('mine')\n" in now and "to now." in now
    same = pycline("diff", task_id, "4", "5", home=isolated_home, cwd=workspace).stdout
    assert same.startswith("0 files changed")


def test_restore_task_cuts_the_conversation_and_resume_continues(
    isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    _workspace(workspace)
    task_id = run_task(isolated_home, workspace, REPLIES, script_dir=tmp_path)
    folder = isolated_home / "tasks" / task_id
    cost_before = load_json(folder / "task_metadata.json")["record"]["tokens_in"]
    files_after = worktree_state(workspace)

    proc = pycline("restore", task_id, "2", "--task", home=isolated_home, cwd=workspace)
    assert proc.returncode == 0, proc.stderr
    assert worktree_state(workspace) == files_after  # --task leaves the files alone
    history = load_json(folder / "api_conversation_history.json")
    assert len(history) == 3 and "<write_to_file>" in history[1]["content"][0]["text"]
    ui = load_json(folder / "ui_messages.json")
    assert ui[-1]["say"] == "deleted_api_reqs" and ui[-2]["say"] == "checkpoint_created"
    assert json.loads(ui[-1]["text"])["tokensIn"] > 0
    record = load_json(folder / "task_metadata.json")["record"]
    assert record["tokens_in"] == cost_before and record["status"] == "restored"

    script = tmp_path / "resume.json"
    script.write_text(json.dumps([COMPLETE]), encoding="utf-8")
    resumed = pycline(
        "resume", task_id, "--provider", "scripted", "--script", str(script), "--yes",
        home=isolated_home, cwd=workspace,
    )  # fmt: skip
    assert resumed.returncode == 0, resumed.stderr
    history = load_json(folder / "api_conversation_history.json")
    # The kept tool result is sent again, with the resumption notice, as one user message.
    assert len(history) == 4
    texts = [c["text"] for c in history[2]["content"]]
    assert texts[0].startswith("[write_to_file for 'src/app.py'] Result:")
    assert texts[1].startswith("[TASK RESUMPTION]")
    assert "<attempt_completion>" in history[3]["content"][0]["text"]


def test_restore_both_and_nested_git_untouched(
    isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    make_repo(workspace, {"src/app.py": "print('old')\n", "old.txt": "x\n"})
    make_repo(workspace / "vendor" / "lib", {"lib.py": "v = 1\n"})
    (workspace / "tool.sh").write_text("echo\n", encoding="utf-8")
    (workspace / "bin.sh").write_text("echo\n", encoding="utf-8")
    prints = git_dirs_fingerprint(workspace)
    before = worktree_state(workspace)
    replies = [write_file("vendor/lib/lib.py", "v = 2\n"), *REPLIES]
    task_id = run_task(isolated_home, workspace, replies, script_dir=tmp_path)
    assert (workspace / "vendor" / "lib" / "lib.py").read_text(encoding="utf-8") == "v = 2\n"

    proc = pycline("restore", task_id, "1", "--both", home=isolated_home, cwd=workspace)
    assert proc.returncode == 0, proc.stderr
    assert worktree_state(workspace) == before
    assert git_dirs_fingerprint(workspace) == prints
    history = load_json(isolated_home / "tasks" / task_id / "api_conversation_history.json")
    assert len(history) == 1 and history[0]["content"][0]["text"].startswith("<task>")


def test_bad_checkpoint_reference_is_one_line(
    isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    task_id = run_task(isolated_home, workspace, [COMPLETE], script_dir=tmp_path)
    for ref in ("9", "abcdef12", "zz"):
        proc = pycline("restore", task_id, ref, "--workspace", home=isolated_home, cwd=workspace)
        assert proc.returncode == 2
        lines = proc.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("pycline: "), proc.stderr
    missing = pycline("restore", task_id, "1", home=isolated_home, cwd=workspace)
    assert missing.returncode == 2 and "--workspace" in missing.stderr


def test_disk_report_compacts_and_finds_orphans(
    isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    other = tmp_path / "other"
    other.mkdir()
    run_task(isolated_home, workspace, [write_file("a.txt", "a\n"), COMPLETE], script_dir=tmp_path)
    run_task(isolated_home, other, [COMPLETE], text="other", script_dir=tmp_path)
    (other / "a").mkdir()
    other.rename(tmp_path / "moved")
    proc = pycline("checkpoints", "--disk", home=isolated_home, cwd=workspace)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert any(str(workspace) in line and "3 checkpoints of 1 tasks" in line for line in lines)
    assert any(str(other) in line and "folder gone" in line for line in lines)
    assert lines[-1].split()[2] == "total"
    cleaned = pycline(
        "checkpoints", "--disk", "--remove-orphans", home=isolated_home, cwd=workspace
    )
    assert "removed" in cleaned.stdout
    assert len(list((isolated_home / "checkpoints").iterdir())) == 1
