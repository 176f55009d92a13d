"""bench/tasks: every task is solved by its oracle and failed by a model that does nothing useful.

This proves the harness end to end (`pycline batch`, isolation, hidden checks in Python,
TypeScript and Go) and that each hidden check really fails on the untouched project.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
RUNNER = ROOT / "bench" / "tasks" / "run.py"
TSC = ROOT / ".ci" / "node" / "node_modules" / ".bin" / "tsc"


def _suite() -> list[dict[str, object]]:
    return [
        json.loads(p.read_text()) for p in sorted((RUNNER.parent / "suite").glob("*/task.json"))
    ]


def _toolchains() -> None:
    assert shutil.which("go"), "go is missing: .ci/run installs Debian's golang-go"
    assert TSC.is_file() or shutil.which("tsc"), "tsc is missing: .ci/run installs typescript"
    assert shutil.which("node"), "node is missing"


def _run(
    tmp_path: Path, home: Path, model: str
) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    out = tmp_path / model
    proc = subprocess.run(
        [sys.executable, str(RUNNER), "--scripted", model, "--out", str(out), "--workers", "4"],
        env=_env(home),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    summary = json.loads((out / "summary.json").read_text())
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    return summary, {row["id"]: row for row in rows}


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env["PYCLINE_HOME"] = str(home)
    return env


def test_the_suite_has_real_tasks_in_three_languages() -> None:
    suite = _suite()
    assert len(suite) >= 20
    assert Counter(t["check"] for t in suite).keys() == {"python", "typescript", "go"}
    assert Counter(t["kind"] for t in suite).keys() == {"bugfix", "feature", "refactor"}
    for task in suite:
        hidden = RUNNER.parent / "suite" / str(task["id"]) / "hidden"
        assert any(hidden.iterdir()), task["id"]
        # The hidden tests are not part of the project the agent works in.
        project = RUNNER.parent / "projects" / str(task["project"])
        assert not any(project.rglob(next(hidden.iterdir()).name))


@pytest.mark.parametrize("model", ["oracle", "bad"])
def test_the_oracle_solves_every_task_and_a_bad_model_none(
    tmp_path: Path, isolated_home: Path, model: str
) -> None:
    _toolchains()
    summary, rows = _run(tmp_path, isolated_home, model)
    assert summary["tasks"] == len(_suite()) == len(rows)
    if model == "oracle":
        assert summary["success_rate"] == 1.0, {k: r["check"] for k, r in rows.items()}
        assert all(r["patch"] for r in rows.values())
    else:
        assert summary["solved"] == 0
        # Counted as failures of the model, not as errors of the harness.
        assert {r["status"] for r in rows.values()} == {"failure"}
