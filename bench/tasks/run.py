"""pycline's task benchmark: small real coding tasks over bundled Python, TypeScript and Go
projects, each judged by hidden tests the agent never sees. `pycline batch` runs them.

    python bench/tasks/run.py                         # the configured model
    python bench/tasks/run.py --provider openai --model gpt-4o
    python bench/tasks/run.py --scripted oracle       # scripted answers: proves the harness
    python bench/tasks/run.py --scripted bad          # a model that changes nothing useful

Prints success rate, cost, tokens and time per task and in total; `--out DIR` keeps the batch
files (tasks.jsonl, results.jsonl, summary.json).
"""

from __future__ import annotations

import argparse
import json
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
SUITE = HERE / "suite"
PROJECTS = HERE / "projects"
COMPLETE = "<attempt_completion>\n<result>Done.</result>\n</attempt_completion>"
BAD_REPLIES = [
    "I will note my plan.\n<write_to_file>\n<path>NOTES.md</path>\n<content>\n"
    "Looked at the task; nothing to change.\n</content>\n</write_to_file>",
    COMPLETE,
]


def load_suite(only: list[str] | None = None) -> list[dict[str, Any]]:
    tasks = [json.loads(p.read_text(encoding="utf-8")) for p in sorted(SUITE.glob("*/task.json"))]
    if only:
        unknown = set(only) - {t["id"] for t in tasks}
        if unknown:
            sys.exit(f"unknown task ids: {', '.join(sorted(unknown))}")
        tasks = [t for t in tasks if t["id"] in only]
    return tasks


def edit_reply(edit: dict[str, str]) -> str:
    if "content" in edit:
        return (
            f"<write_to_file>\n<path>{edit['path']}</path>\n<content>\n{edit['content']}"
            "</content>\n</write_to_file>"
        )
    return (
        f"<replace_in_file>\n<path>{edit['path']}</path>\n<diff>\n------- SEARCH\n"
        f"{edit['search']}=======\n{edit['replace']}+++++++ REPLACE\n</diff>\n</replace_in_file>"
    )


def oracle_replies(task: dict[str, Any]) -> list[str]:
    return [edit_reply(e) for e in task["oracle"]] + [COMPLETE]


def write_batch(
    tasks: list[dict[str, Any]], folder: Path, scripted: str | None
) -> tuple[Path, list[str]]:
    """The batch's tasks file, and the model flags for `pycline batch`."""
    lines = []
    for task in tasks:
        check = shlex.join(
            [
                sys.executable,
                str(HERE / "check.py"),
                task["check"],
                str(SUITE / task["id"] / "hidden"),
            ]
        )
        line = {
            "id": task["id"],
            "repo": str(PROJECTS / task["project"]),
            "task": task["task"],
            "check": check,
        }
        if scripted == "oracle":
            script = folder / "scripts" / f"{task['id']}.json"
            script.parent.mkdir(parents=True, exist_ok=True)
            script.write_text(json.dumps(oracle_replies(task)), encoding="utf-8")
            line["script"] = str(script)
        lines.append(json.dumps(line))
    path = folder / "tasks.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    flags: list[str] = []
    if scripted == "bad":
        bad = folder / "bad.json"
        bad.write_text(json.dumps(BAD_REPLIES), encoding="utf-8")
        flags = ["--provider", "scripted", "--script", str(bad)]
    return path, flags


def report(
    tasks: list[dict[str, Any]], results: dict[str, dict[str, Any]], wall: float
) -> dict[str, Any]:
    print(
        f"{'task':<24} {'kind':<9} {'lang':<11} {'result':<12} {'cost':>9} {'tokens':>8} {'time':>7}"
    )
    for task in tasks:
        r = results.get(task["id"], {})
        tokens = r.get("tokens_in", 0) + r.get("tokens_out", 0)
        print(
            f"{task['id']:<24} {task['kind']:<9} {task['check']:<11} {r.get('status', 'missing'):<12} "
            f"${r.get('cost', 0.0):>8.4f} {tokens:>8} {r.get('duration', 0.0):>6.1f}s"
        )
    solved = [t for t in tasks if results.get(t["id"], {}).get("status") == "success"]
    summary = {
        "tasks": len(tasks),
        "solved": len(solved),
        "success_rate": len(solved) / len(tasks) if tasks else 0.0,
        "cost": round(sum(r.get("cost", 0.0) for r in results.values()), 6),
        "tokens_in": sum(r.get("tokens_in", 0) for r in results.values()),
        "tokens_out": sum(r.get("tokens_out", 0) for r in results.values()),
        "task_seconds": round(sum(r.get("duration", 0.0) for r in results.values()), 1),
        "wall_seconds": round(wall, 1),
        "by_language": {
            lang: f"{sum(t in solved for t in group)}/{len(group)}"
            for lang in ("python", "typescript", "go")
            if (group := [t for t in tasks if t["check"] == lang])
        },
    }
    print(
        f"\nsolved {summary['solved']}/{summary['tasks']} ({summary['success_rate']:.0%}) · "
        + " · ".join(f"{k} {v}" for k, v in summary["by_language"].items())
        + f"\ncost ${summary['cost']:.4f} · tokens {summary['tokens_in']} in / "
        f"{summary['tokens_out']} out · {summary['task_seconds']}s in tasks, "
        f"{summary['wall_seconds']}s wall"
    )
    return summary


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--scripted", choices=("oracle", "bad"), help="a scripted model instead")
    p.add_argument("--provider")
    p.add_argument("--model")
    p.add_argument("--base-url")
    p.add_argument("--profile")
    p.add_argument("--workers", type=int, default=4)
    p.add_argument("--backend", choices=("local", "ray"), default="local")
    p.add_argument("--timeout", type=float, default=900, help="seconds per task for the agent")
    p.add_argument("--max-cost-per-task", type=float)
    p.add_argument("--only", nargs="+", metavar="ID", help="run only these tasks")
    p.add_argument("--out", type=Path, help="keep the batch files here")
    ns = p.parse_args(argv)
    tasks = load_suite(ns.only)
    folder = ns.out or Path(tempfile.mkdtemp(prefix="pycline-bench-tasks-"))
    folder.mkdir(parents=True, exist_ok=True)
    tasks_file, flags = write_batch(tasks, folder, ns.scripted)
    for name in ("provider", "model", "base_url", "profile"):
        if getattr(ns, name) and not ns.scripted:
            flags += [f"--{name.replace('_', '-')}", getattr(ns, name)]
    out = folder / "results.jsonl"
    out.unlink(missing_ok=True)
    cmd = [sys.executable, "-m", "pycline", "batch", str(tasks_file), "--out", str(out)]
    cmd += ["--workers", str(ns.workers), "--backend", ns.backend, "--timeout", str(ns.timeout)]
    if ns.max_cost_per_task is not None:
        cmd += ["--max-cost-per-task", str(ns.max_cost_per_task)]
    started = time.monotonic()
    batch = subprocess.run([*cmd, *flags], stdout=subprocess.DEVNULL, check=False)
    # 1: the batch ran and no task succeeded (a bad model's result, still reported)
    if batch.returncode not in (0, 1):
        print(f"pycline batch failed ({batch.returncode})", file=sys.stderr)
        return batch.returncode
    results = {}
    for line in out.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        results[row["id"]] = row
    summary = report(tasks, results, time.monotonic() - started)
    (folder / "summary.json").write_text(json.dumps(summary, indent=1), encoding="utf-8")
    print(f"batch files: {folder}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
