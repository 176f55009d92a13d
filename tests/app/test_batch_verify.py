"""A batch line's `verify`: the agent is held to the goal while it works (`pycline run
--verify`), and a task that never passes it is reported unverified, not as an error."""

from __future__ import annotations

from pathlib import Path

from tests.app.batch_helpers import (
    COMPLETE,
    results,
    run_batch,
    write_file_reply,
    write_script,
    write_tasks,
)


def test_a_batch_line_verify_goal_is_kept_to_while_the_agent_works(
    tmp_path: Path, isolated_home: Path
) -> None:
    for name in ("fixed", "lazy"):
        (tmp_path / name).mkdir()
    write_script(tmp_path / "fixed.json", [COMPLETE, write_file_reply("ok.txt", "ok"), COMPLETE])
    write_script(tmp_path / "lazy.json", [COMPLETE, COMPLETE])
    goal = "test -f ok.txt"
    tasks = write_tasks(
        tmp_path / "tasks.jsonl",
        [
            {"id": "fixed", "workspace": "fixed", "task": "make ok.txt", "verify": goal,
             "script": "fixed.json"},
            {"id": "lazy", "workspace": "lazy", "task": "make ok.txt", "verify": goal,
             "max_verify": 2, "script": "lazy.json"},
        ],
    )  # fmt: skip
    out = tmp_path / "out.jsonl"
    proc = run_batch(tasks, out, "--workers", "2", home=isolated_home)
    rows = results(out)
    assert rows["fixed"]["status"] == "success", proc.stderr
    assert rows["fixed"]["requests"] == 3  # the first claim was sent back by the check
    assert rows["lazy"]["status"] == "unverified" and rows["lazy"]["error"] is None
