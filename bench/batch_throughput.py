"""Batch throughput: 50 scripted tasks on 4 workers, local backend then a private Ray cluster.

    python bench/batch_throughput.py [--tasks 50] [--workers 4]

Prints tasks per minute for each backend and whether both gave the same results (everything
but durations and transcript paths).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

COMPLETE = "<attempt_completion>\n<result>done</result>\n</attempt_completion>"


def setup(folder: Path, count: int) -> Path:
    repo = folder / "repo"
    repo.mkdir()
    (repo / "app.py").write_text("VALUE = 1\n", encoding="utf-8")
    git = ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.invalid"]
    subprocess.run([*git, "init", "-q", "-b", "main"], cwd=repo, check=True)
    subprocess.run([*git, "add", "-A"], cwd=repo, check=True)
    subprocess.run([*git, "commit", "-qm", "initial"], cwd=repo, check=True)
    lines = []
    for n in range(count):
        edit = (
            f"<write_to_file>\n<path>out_{n}.py</path>\n<content>\nRESULT = {n}\n</content>\n"
            "</write_to_file>"
        )
        script = folder / f"s{n}.json"
        script.write_text(json.dumps([edit, COMPLETE]), encoding="utf-8")
        check = f"grep -q 'RESULT = {n}' out_{n}.py"
        lines.append(
            json.dumps(
                {
                    "id": f"t{n:03d}",
                    "repo": "repo",
                    "task": "w",
                    "check": check,
                    "script": str(script),
                }
            )
        )
    tasks = folder / "tasks.jsonl"
    tasks.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return tasks


def run(tasks: Path, out: Path, workers: int, backend: str) -> float:
    cmd = [sys.executable, "-m", "pycline", "batch", str(tasks), "--out", str(out)]
    started = time.monotonic()
    subprocess.run(
        [*cmd, "--workers", str(workers), "--backend", backend],
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "RAY_USAGE_STATS_ENABLED": "0"},
    )
    return time.monotonic() - started


def comparable(out: Path) -> dict[str, dict[str, object]]:
    rows = {}
    for line in out.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        row.pop("duration")
        row.pop("transcript")
        if row["check"]:
            row["check"].pop("duration")
        rows[row["id"]] = row
    return rows


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--tasks", type=int, default=50)
    p.add_argument("--workers", type=int, default=4)
    ns = p.parse_args()
    with tempfile.TemporaryDirectory(prefix="pycline-throughput-") as tmp:
        folder = Path(tmp)
        os.environ.setdefault("PYCLINE_HOME", str(folder / "home"))
        tasks = setup(folder, ns.tasks)
        results = {}
        for backend in ("local", "ray"):
            out = folder / f"{backend}.jsonl"
            seconds = run(tasks, out, ns.workers, backend)
            rows = comparable(out)
            ok = sum(r["status"] == "success" for r in rows.values())
            results[backend] = rows
            print(
                f"{backend:>5}: {ns.tasks} tasks on {ns.workers} workers in {seconds:.1f}s = "
                f"{ns.tasks / seconds * 60:.1f} tasks/min ({ok} succeeded)"
            )
        same = results["local"] == results["ray"]
        print(f"identical results: {'yes' if same else 'NO'}")
        return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
