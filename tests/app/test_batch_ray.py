"""The Ray backend: `pycline batch --backend ray` starts a private Ray cluster on loopback
(`ray.init(address="local")`, 127.0.0.1, no dashboard) and shuts it down when the batch ends;
the orphan-process check of conftest.py proves nothing of it outlives the test."""

from __future__ import annotations

from pathlib import Path

from tests.app.batch_helpers import (
    COMPLETE,
    comparable,
    results,
    run_batch,
    write_file_reply,
    write_script,
    write_tasks,
)
from tests.app.gitrepo import make_repo


def test_local_and_ray_backends_give_identical_results(tmp_path: Path, isolated_home: Path) -> None:
    make_repo(tmp_path / "repo", {"app.py": "VALUE = 1\n"})
    fix = write_script(tmp_path / "fix.json", [write_file_reply("app.py", "VALUE = 2"), COMPLETE])
    lazy = write_script(tmp_path / "lazy.json", [COMPLETE])
    empty = write_script(tmp_path / "empty.json", [])
    check = "grep -q 'VALUE = 2' app.py"
    lines = []
    for n in range(8):
        script = (fix, lazy, empty)[n % 3]
        lines.append(
            {
                "id": f"t{n}",
                "repo": "repo",
                "task": "set VALUE to 2",
                "check": check,
                "script": str(script),
            }
        )
    lines.append({"id": "broken", "repo": "nowhere", "task": "t", "script": str(fix)})
    tasks = write_tasks(tmp_path / "tasks.jsonl", lines)
    local_out, ray_out = tmp_path / "local.jsonl", tmp_path / "ray.jsonl"
    local = run_batch(tasks, local_out, "--workers", "4", home=isolated_home)
    assert local.returncode == 1, local.stderr  # some tasks fail
    remote = run_batch(
        tasks,
        ray_out,
        "--workers",
        "4",
        "--backend",
        "ray",
        home=isolated_home,
    )
    assert remote.returncode == 1, remote.stderr
    by_local, by_ray = results(local_out), results(ray_out)
    assert set(by_ray) == {f"t{n}" for n in range(8)} | {"broken"}
    assert {k: comparable(v) for k, v in by_ray.items()} == {
        k: comparable(v) for k, v in by_local.items()
    }
    assert [by_ray[f"t{n}"]["status"] for n in range(3)] == ["success", "failure", "failure"]
    assert by_ray["broken"]["status"] == "error"
